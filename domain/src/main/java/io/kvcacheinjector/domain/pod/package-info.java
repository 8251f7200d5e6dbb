/** The Pod read-model: what the webhooks read of a Pod, built from the object exactly as received. */
package io.kvcacheinjector.domain.pod;
