package io.kvcacheinjector.domain.pod;

/** One {@code volumeMounts} entry: the volume name and the mount path. */
public record VolumeMount(String name, String mountPath) {
}
