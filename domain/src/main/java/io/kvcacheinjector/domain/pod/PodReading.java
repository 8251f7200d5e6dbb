package io.kvcacheinjector.domain.pod;

/** The result of reading an object as a Pod: the Pod, or why it could not be read. */
public sealed interface PodReading permits PodReading.Read, PodReading.Unreadable {
    /** The object was read. */
    record Read(Pod pod) implements PodReading {
    }

    /** The object has a field of the wrong shape; {@code problem} names the field and what was expected. */
    record Unreadable(String problem) implements PodReading {
    }
}
