/**
 * {@code kvcache-injector serve}, the webhook: its command and options, the runtime that starts the cluster view,
 * the handler and the HTTPS server and stops them in reverse ({@link io.kvcacheinjector.app.serve.ServeRuntime}),
 * the signals that stop it, and what runs once the view has synced (the CacheBlendEngine controller's deferred start,
 * the heap given back after the informers' first lists and the old generation kept near the live data). The Guice
 * module it starts is the composition root in {@code io.kvcacheinjector.app.wiring}.
 */
package io.kvcacheinjector.app.serve;
