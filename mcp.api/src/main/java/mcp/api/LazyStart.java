package mcp.api;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a lazy server runs (the native format's {@code "lazy": true}, or {@code "lazy": {"idleTimeout": ms}}): it is
 * not started when the host loads; its cached tools stand for it (listed, searchable, deferred); the first call of
 * one of them starts it, and it is stopped again once it has been idle for {@link #idleTimeout()}: no request in
 * flight, none for that long, and no resource subscription open. A lazy server nothing is cached of (or whose
 * definition changed since it was cached) is started once to fill the cache, then stopped.
 *
 * <p>Its own type rather than a flag and a duration on each config record: one component carries both, and a
 * config without it ({@link ServerConfig#lazy()} empty) is started at load as always. {@code idleTimeout} is
 * named inside {@code lazy} because the native format's {@code idleTimeout} beside it is already a tool call's
 * idle bound ({@link CallLimits}).
 *
 * @param idleTimeout how long the server may be idle before it is stopped; empty: the host's
 *     ({@link #DEFAULT_IDLE_TIMEOUT} unless its builder sets another)
 */
public record LazyStart(Optional<Duration> idleTimeout) {

    /** How long a lazy server may be idle when neither its config nor the host sets another time. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);

    /** Lazy, with the host's idle timeout. */
    public static final LazyStart DEFAULT = new LazyStart(Optional.empty());

    /** Validates: an idle timeout is positive. */
    public LazyStart {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        idleTimeout.ifPresent(time -> {
            if (time.isNegative() || time.isZero()) {
                throw new IllegalArgumentException("a lazy server's idleTimeout must be positive, got " + time);
            }
        });
    }

    /**
     * @param idleTimeout how long the server may be idle before it is stopped
     * @return lazy with that idle timeout
     */
    public static LazyStart idle(Duration idleTimeout) {
        return new LazyStart(Optional.of(idleTimeout));
    }

    @Override
    public String toString() {
        return "lazy" + idleTimeout.map(t -> "(idleTimeout=" + t.toMillis() + "ms)").orElse("");
    }
}
