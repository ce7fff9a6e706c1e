package mcp.cli.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT for a command that stops gracefully ({@code serve}): the first one asks it to stop, and it
 * finishes what is in flight; a second one ends the process at once (the JVM's shutdown then closes every server, as
 * on any exit). The JVM's own handling would start its shutdown at the first signal, and a shutdown hook cannot wait
 * for calls in flight while the host's own hooks end its servers beside it, so the signals are taken over.
 *
 * <p>Only the real process takes them over ({@link #enable()}, from {@code Main.main}): a command run in a test's
 * JVM gets a shutdown hook instead, and never touches that JVM's signals. A signal that the process inherited as
 * ignored (SIGINT of a job a shell started in the background) stays ignored, as the JVM leaves it.
 */
final class StopSignals {

    private static final Logger LOG = LoggerFactory.getLogger(StopSignals.class);
    private static volatile boolean enabled;

    private StopSignals() {
    }

    /** Lets {@link #onStop} take over the process's signals: called by the real process only. */
    static void enable() {
        enabled = true;
    }

    /** What {@link #onStop} set up; closing it gives the signals back to the JVM's handling. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * @param stop runs once, on the first SIGTERM or SIGINT (on the signal's thread: it must not block), with the
     *     signal's name
     * @return the registration; in a test's JVM, a shutdown hook that runs {@code stop}
     */
    static Registration onStop(java.util.function.Consumer<String> stop) {
        AtomicBoolean first = new AtomicBoolean(true);
        if (!enabled) {
            Thread hook = new Thread(() -> stop.accept("shutdown"), "mcp-host-serve-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            return () -> {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // The JVM is shutting down: the hook is running or has run.
                }
            };
        }
        java.util.Map<Signal, sun.misc.SignalHandler> previous = new java.util.LinkedHashMap<>();
        sun.misc.SignalHandler handler = signal -> {
            if (first.compareAndSet(true, false)) {
                stop.accept("SIG" + signal.getName());
            } else {
                // Asked twice: no more waiting. System.exit runs the shutdown hooks, which end every server.
                Runtime.getRuntime().exit(128 + signal.getNumber());
            }
        };
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal signal = new Signal(name);
                previous.put(signal, Signal.handle(signal, handler));
            } catch (IllegalArgumentException e) {
                LOG.debug("SIG{} cannot be handled here: {}", name, e.getMessage());
            }
        }
        return () -> previous.forEach((signal, old) -> {
            try {
                Signal.handle(signal, old);
            } catch (IllegalArgumentException e) {
                LOG.debug("SIG{} could not be given back: {}", signal.getName(), e.getMessage());
            }
        });
    }
}
