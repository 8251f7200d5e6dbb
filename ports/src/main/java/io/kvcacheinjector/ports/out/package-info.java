/** Driven ports: what the use cases read from the outside world (the cluster view, the settings). */
package io.kvcacheinjector.ports.out;
