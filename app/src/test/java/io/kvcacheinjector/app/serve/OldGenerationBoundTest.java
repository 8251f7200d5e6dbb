package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class OldGenerationBoundTest {
    private static final long MIB = 1024 * 1024;

    @Test
    void pastTheHeadroomItCollectsOnceAndSetsTheNextThresholdAboveWhatIsLiveThen() throws Exception {
        AtomicLong used = new AtomicLong(20 * MIB);
        MemoryPoolMXBean pool = mock(MemoryPoolMXBean.class);
        when(pool.getName()).thenReturn(OldGenerationBound.SERIAL_OLD_POOL);
        when(pool.isUsageThresholdSupported()).thenReturn(true);
        when(pool.getUsage()).thenAnswer(i -> new MemoryUsage(0, used.get(), 130 * MIB, 130 * MIB));
        NotificationEmitter emitter = mock(NotificationEmitter.class);
        AtomicInteger collections = new AtomicInteger();
        OldGenerationBound bound = OldGenerationBound.arm(pool, emitter, 24 * MIB, () -> {
            collections.incrementAndGet();
            used.set(12 * MIB); // a full collection leaves the live data
        }).orElseThrow();
        verify(pool).setUsageThreshold(44 * MIB);
        ArgumentCaptor<NotificationListener> listener = ArgumentCaptor.forClass(NotificationListener.class);
        verify(emitter).addNotificationListener(listener.capture(), isNull(), isNull());

        listener.getValue().handleNotification(new Notification(
                MemoryNotificationInfo.MEMORY_COLLECTION_THRESHOLD_EXCEEDED, "jvm", 1), null);
        assertThat(collections).as("another kind of notification").hasValue(0);

        used.set(45 * MIB);
        listener.getValue().handleNotification(new Notification(MemoryNotificationInfo.MEMORY_THRESHOLD_EXCEEDED,
                "jvm", 2), null);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (bound.collections() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(100); // the threshold is set again right after the collection
        verify(pool).setUsageThreshold(36 * MIB);
        assertThat(collections).hasValue(1);
        bound.disarm();
    }

    @Test
    void nothingIsArmedWithoutAUsageThresholdOrHeadroom() {
        MemoryPoolMXBean pool = mock(MemoryPoolMXBean.class);
        when(pool.isUsageThresholdSupported()).thenReturn(false);
        NotificationEmitter emitter = mock(NotificationEmitter.class);
        assertThat(OldGenerationBound.arm(pool, emitter, 24 * MIB, () -> { })).isEmpty();
        when(pool.isUsageThresholdSupported()).thenReturn(true);
        assertThat(OldGenerationBound.arm(pool, emitter, 0, () -> { })).isEmpty();
        verify(emitter, never()).addNotificationListener(any(), any(), any());
    }

    @Test
    void itArmsOnlyUnderTheSerialCollector() {
        boolean serial = ManagementFactory.getMemoryPoolMXBeans().stream()
                .anyMatch(p -> OldGenerationBound.SERIAL_OLD_POOL.equals(p.getName()));
        var bound = OldGenerationBound.arm(OldGenerationBound.DEFAULT_HEADROOM_BYTES);
        assertThat(bound.isPresent()).isEqualTo(serial);
        bound.ifPresent(OldGenerationBound::disarm);
    }
}
