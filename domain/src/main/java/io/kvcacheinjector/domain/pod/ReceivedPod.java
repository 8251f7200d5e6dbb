package io.kvcacheinjector.domain.pod;

/**
 * A Pod exactly as it was received (from an AdmissionReview, or a file the offline commands read): the decoded JSON
 * tree of maps, lists, strings, numbers, booleans and nulls, not yet read. A use case reads it with
 * {@link PodReader}, which answers a readable {@link Pod} or the problem; it never changes the tree, so a refused Pod is
 * left byte-identical.
 *
 * @param json the decoded object; may be anything JSON can hold, including {@code null}
 */
public record ReceivedPod(Object json) {
}
