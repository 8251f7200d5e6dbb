/**
 * The composition root: {@link io.kvcacheinjector.app.wiring.AdmissionWiring} builds the use cases of the admission
 * path and their failure policy for every command ({@code serve}, {@code inject}, {@code review}, {@code bench},
 * {@code check}) and for the tests, and {@link io.kvcacheinjector.app.wiring.AppModule} is {@code serve}'s Guice
 * module (the cluster view, the engines, the handler). A package of its own, below every command's package, so the
 * commands can all use it without a package cycle; it reads {@code serve}'s options through
 * {@link io.kvcacheinjector.app.wiring.AppModule.Options}.
 */
package io.kvcacheinjector.app.wiring;
