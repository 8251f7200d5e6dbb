/**
 * The one quoting rule of every message ({@link io.kvcacheinjector.domain.text.MessageText}): how a value taken from a
 * Pod or the cluster is shown to a person. It depends on nothing, so every package of the domain can use it.
 */
package io.kvcacheinjector.domain.text;
