package io.kvcacheinjector.adapters.k8s.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The controller's reconcile threads: the Operator SDK's default pool keeps one thread for each of the first 50
 * reconciles for good; ours runs at most {@link CacheBlendOperator#RECONCILE_THREADS} and keeps none when idle.
 */
class ReconcileExecutorTest {
    @Test
    void manyReconcilesShareTwoThreadsAndNoThreadIsKeptIdle() throws Exception {
        ExecutorService executor = CacheBlendOperator.reconcileExecutor(Duration.ofMillis(50));
        try {
            Set<String> threads = ConcurrentHashMap.newKeySet();
            AtomicInteger running = new AtomicInteger();
            AtomicInteger mostAtOnce = new AtomicInteger();
            int reconciles = 60;
            CountDownLatch done = new CountDownLatch(reconciles);
            for (int i = 0; i < reconciles; i++) {
                executor.execute(() -> {
                    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                    threads.add(Thread.currentThread().getName());
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    running.decrementAndGet();
                    done.countDown();
                });
            }
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(threads).hasSize(CacheBlendOperator.RECONCILE_THREADS)
                    .allSatisfy(name -> assertThat(name).startsWith("cacheblend-reconcile-"));
            assertThat(mostAtOnce.get()).isLessThanOrEqualTo(CacheBlendOperator.RECONCILE_THREADS);
            ThreadPoolExecutor pool = (ThreadPoolExecutor) executor;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (pool.getPoolSize() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(pool.getPoolSize()).as("threads left after the reconciles went idle").isZero();
        } finally {
            executor.shutdownNow();
        }
    }
}
