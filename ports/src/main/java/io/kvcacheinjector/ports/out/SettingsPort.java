package io.kvcacheinjector.ports.out;

/** Operator-wide settings (driven port). Reference: docs/reference/kvcache-contract.md (decision D9). */
public interface SettingsPort {
    /**
     * The Setting {@code model-deployment-kv-cache-dtype-owned} from the Secret {@code gpustack-settings}: on
     * (the default, also for a missing Secret, key or unparseable value) or off.
     */
    boolean kvCacheDtypeOwned();
}
