package mcp.gateway.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Token buckets by key (a client, or a client and a tool), in a map of bounded size: memory stays the same whatever
 * the number of clients.
 *
 * <p>Why dropping a bucket is safe: a bucket that has refilled to its burst is the same as a new one, so the least
 * recently used bucket can go when the map is full, and an idle client loses nothing. Only a flood of more distinct
 * clients than the map holds, each active within the time a bucket takes to refill, could get a fresh bucket early;
 * the bound ({@code maxTracked}) is sized far above a team's clients.
 *
 * <p>State: one access-ordered map behind this object's lock; a request holds it for one map operation and a few
 * arithmetic steps.
 */
public final class RateLimiter {

    private final int maxTracked;
    private final LongSupplier nanos;
    private final Map<String, Bucket> buckets;

    /**
     * @param maxTracked the most buckets held at once
     * @param nanos the clock ({@link System#nanoTime} but in tests)
     */
    public RateLimiter(int maxTracked, LongSupplier nanos) {
        if (maxTracked < 1) {
            throw new IllegalArgumentException("maxTracked must be positive");
        }
        this.maxTracked = maxTracked;
        this.nanos = nanos;
        this.buckets = new LinkedHashMap<>(Math.min(maxTracked, 1024), 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
                return size() > RateLimiter.this.maxTracked;
            }
        };
    }

    /**
     * Takes one token of the key's bucket.
     *
     * @param key whose bucket
     * @param rate its rate
     * @return 0 when the request may go on, else how many nanoseconds until a token is there
     */
    public long take(String key, Policy.Rate rate) {
        long now = nanos.getAsLong();
        synchronized (this) {
            Bucket bucket = buckets.get(key);
            if (bucket == null || !bucket.rate.equals(rate)) {
                // New, or its rate changed with the policy: a full bucket of the rate in force.
                bucket = new Bucket(rate, rate.burst(), now);
                buckets.put(key, bucket);
            }
            return bucket.take(now);
        }
    }

    /** @return how many buckets are held now */
    public synchronized int size() {
        return buckets.size();
    }

    /** @return the most buckets held at once */
    public int maxTracked() {
        return maxTracked;
    }

    /** One bucket: its tokens as of its last refill. */
    private static final class Bucket {
        final Policy.Rate rate;
        double tokens;
        long refilled;

        Bucket(Policy.Rate rate, double tokens, long refilled) {
            this.rate = rate;
            this.tokens = tokens;
            this.refilled = refilled;
        }

        long take(long now) {
            long elapsed = now - refilled;
            if (elapsed > 0) {
                tokens = Math.min(rate.burst(), tokens + elapsed * rate.perSecond() / 1e9);
                refilled = now;
            }
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            return Math.max(1, (long) Math.ceil((1 - tokens) * 1e9 / rate.perSecond()));
        }
    }
}
