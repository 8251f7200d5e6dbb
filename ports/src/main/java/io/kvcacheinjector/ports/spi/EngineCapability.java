package io.kvcacheinjector.ports.spi;

/** Something an engine can do beyond the kvcache contract; new constants may be added within an SPI major version. */
public enum EngineCapability {
    /**
     * The engine runs the LMCache CacheBlend plugin of the {@code lmcache.ai} contract: its flag grammar reads the
     * appended CacheBlend flags and its entry point is the one a CacheBlend Pod must launch. At most one installed
     * engine may declare it.
     */
    CACHEBLEND
}
