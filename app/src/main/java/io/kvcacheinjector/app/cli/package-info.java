/**
 * What every command shares: {@link io.kvcacheinjector.app.cli.Cli}'s conventions (exit status, help on stdout,
 * one-line usage errors with the closest spelling) and the live cluster's kubeconfig options
 * ({@code --kubeconfig}, {@code --context}) that {@code check}, {@code inject}, {@code review} and {@code bench} read.
 * The entry point itself, {@code io.kvcacheinjector.app.Main}, sits above every command's package; this package
 * depends on none of them.
 */
package io.kvcacheinjector.app.cli;
