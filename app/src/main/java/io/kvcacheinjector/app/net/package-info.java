/** The JVM's name resolution: forward lookups as the JDK does them, no reverse lookups. */
package io.kvcacheinjector.app.net;
