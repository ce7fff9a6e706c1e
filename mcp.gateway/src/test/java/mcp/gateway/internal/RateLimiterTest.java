package mcp.gateway.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Token buckets on a clock the test moves. */
class RateLimiterTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aBucketGivesItsBurstThenItsRateAndSaysHowLongToWait() {
        AtomicLong clock = new AtomicLong(5 * SECOND);
        RateLimiter limiter = new RateLimiter(100, clock::get);
        Policy.Rate rate = new Policy.Rate(2, 3);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, limiter.take("a", rate), "burst " + i);
        }
        long wait = limiter.take("a", rate);
        assertEquals(SECOND / 2, wait, "one token every half second");
        assertEquals(0, limiter.take("b", rate), "another key has its own bucket");
        clock.addAndGet(SECOND / 2);
        assertEquals(0, limiter.take("a", rate));
        assertTrue(limiter.take("a", rate) > 0);
        clock.addAndGet(60 * SECOND);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, limiter.take("a", rate), "refilled to the burst, not beyond");
        }
        assertTrue(limiter.take("a", rate) > 0);
        // A new rate (a reloaded policy) starts a full bucket of it.
        assertEquals(0, limiter.take("a", new Policy.Rate(1, 1)));
    }

    @Test
    void memoryStaysBoundedWhateverTheNumberOfClients() {
        AtomicLong clock = new AtomicLong();
        RateLimiter limiter = new RateLimiter(1_000, clock::get);
        Policy.Rate rate = new Policy.Rate(1, 1);
        // An active client, then a hundred thousand others, one request each.
        assertEquals(0, limiter.take("steady", rate));
        for (int i = 0; i < 100_000; i++) {
            assertEquals(0, limiter.take("client-" + i, rate));
            if (i % 500 == 0) {
                // The steady client stays among the recently used: its empty bucket is kept, and it stays limited.
                assertTrue(limiter.take("steady", rate) > 0, "at " + i);
            }
            assertTrue(limiter.size() <= 1_000);
        }
        assertEquals(1_000, limiter.size());
        // The oldest buckets went: one of them starts anew, full (which is what it had refilled to anyway).
        assertEquals(0, limiter.take("client-0", rate));
    }
}
