/**
 * The contracts as values: the reason-code catalogue, the {@link io.kvcacheinjector.domain.Decision} of one
 * admission and the JSON Patch operations it renders. Depends on the JDK only.
 */
package io.kvcacheinjector.domain;
