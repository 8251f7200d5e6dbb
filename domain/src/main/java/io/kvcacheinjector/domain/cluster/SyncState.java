package io.kvcacheinjector.domain.cluster;

/** Whether the cluster view can answer: synced, or not (with one clause saying why). */
public sealed interface SyncState permits SyncState.Synced, SyncState.NotSynced {
    record Synced() implements SyncState {
    }

    record NotSynced(String reason) implements SyncState {
    }

    static SyncState synced() {
        return new Synced();
    }
}
