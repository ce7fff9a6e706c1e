package mcp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The backoff of {@link ReconnectPolicy}: doubling from the initial delay, capped, jittered within the cap. */
class ReconnectPolicyTest {

    @Test
    void theDelayDoublesUpToTheMaximum() {
        ReconnectPolicy policy = new ReconnectPolicy(10, Duration.ofMillis(500), Duration.ofSeconds(30), 0,
                Duration.ofSeconds(10));
        assertEquals(500, policy.delay(1, 0.5).toMillis());
        assertEquals(1_000, policy.delay(2, 0.5).toMillis());
        assertEquals(2_000, policy.delay(3, 0.5).toMillis());
        assertEquals(16_000, policy.delay(6, 0.5).toMillis());
        assertEquals(30_000, policy.delay(7, 0.5).toMillis());
        assertEquals(30_000, policy.delay(1_000, 0.5).toMillis(), "no overflow");
    }

    @Test
    void jitterVariesEitherWayButNeverPastTheMaximum() {
        ReconnectPolicy policy = ReconnectPolicy.DEFAULT;
        assertEquals(400, policy.delay(1, 0).toMillis());
        assertEquals(600, policy.delay(1, 1).toMillis());
        assertEquals(30_000, policy.delay(20, 0.99).toMillis());
        assertEquals(24_000, policy.delay(20, 0).toMillis());
    }

    @Test
    void theDefaultsAreOnWithBoundsAndOffIsOff() {
        assertTrue(ReconnectPolicy.DEFAULT.enabled());
        assertEquals(5, ReconnectPolicy.DEFAULT.attempts());
        assertEquals(Duration.ofMillis(500), ReconnectPolicy.DEFAULT.initialDelay());
        assertEquals(Duration.ofSeconds(30), ReconnectPolicy.DEFAULT.maxDelay());
        assertEquals(0.2, ReconnectPolicy.DEFAULT.jitter());
        assertEquals(Duration.ofSeconds(10), ReconnectPolicy.DEFAULT.crashWindow());
        assertEquals(3, ReconnectPolicy.DEFAULT.startupRetries());
        assertFalse(ReconnectPolicy.OFF.enabled());
        assertEquals(0, ReconnectPolicy.OFF.startupRetries(), "off: a failed first connect is not tried again either");
        assertEquals("ReconnectPolicy[off]", ReconnectPolicy.OFF.toString());
    }

    @Test
    void startupRetriesAreTheirOwnCountBesideTheReconnectAttempts() {
        ReconnectPolicy five = new ReconnectPolicy(0, Duration.ofMillis(100), Duration.ofSeconds(1), 0,
                Duration.ofSeconds(10));
        assertEquals(3, five.startupRetries(), "the five-field constructor keeps the default retries");
        assertFalse(five.enabled());
        ReconnectPolicy none = ReconnectPolicy.DEFAULT.withStartupRetries(0);
        assertTrue(none.enabled(), "reconnects stay on");
        assertEquals(0, none.startupRetries());
        assertEquals(ReconnectPolicy.DEFAULT, none.withStartupRetries(3));
        assertTrue(five.toString().endsWith("startupRetries=3]"), five.toString());
        assertEquals("startup retries must not be negative, got -1", assertThrows(IllegalArgumentException.class,
                () -> ReconnectPolicy.DEFAULT.withStartupRetries(-1)).getMessage());
    }

    @Test
    void nonsenseIsRefusedWithTheBoundInTheMessage() {
        assertEquals("reconnect attempts must not be negative, got -1", assertThrows(IllegalArgumentException.class,
                () -> new ReconnectPolicy(-1, Duration.ZERO, Duration.ZERO, 0, Duration.ZERO)).getMessage());
        assertEquals("reconnect jitter must be between 0 and 1, got NaN", assertThrows(IllegalArgumentException.class,
                () -> new ReconnectPolicy(1, Duration.ZERO, Duration.ZERO, Double.NaN, Duration.ZERO)).getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new ReconnectPolicy(1, Duration.ofSeconds(2), Duration.ofSeconds(1), 0, Duration.ZERO));
    }
}
