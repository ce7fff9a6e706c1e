package mcp.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A terminal for tests: a command run in a tmux session of its own (a private server on a socket in a temporary
 * directory, so the machine's own tmux is never touched), typed into as a person types, its screen read back. The
 * command sees a real terminal (a pty), as a person's shell does.
 */
final class Tmux implements AutoCloseable {

    private static final String SESSION = "it";
    private static final long COMMAND_SECONDS = 10;

    private final Path socket;
    private final Map<String, String> env;

    private Tmux(Path socket, Map<String, String> env) {
        this.socket = socket;
        this.env = env;
    }

    /** @return whether a tmux can be run here */
    static boolean available() {
        try {
            Process process = new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Starts a command in a new session 200 columns wide; its pane stays after it ends, for the last screen.
     *
     * @param directory where the socket goes, and the command's working directory
     * @param env the environment of the tmux server, which the command inherits, over this process's
     * @param command the command line, as one shell command
     * @return the terminal
     */
    static Tmux start(Path directory, Map<String, String> env, String command) {
        Tmux tmux = new Tmux(directory.resolve("tmux.sock"), env);
        tmux.tmux(directory, "new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50", command, ";",
                "set-option", "-t", SESSION, "remain-on-exit", "on");
        return tmux;
    }

    /** Types a line and Enter. */
    void type(String line) {
        if (!line.isEmpty()) {
            tmux(null, "send-keys", "-t", SESSION, "-l", line);
        }
        tmux(null, "send-keys", "-t", SESSION, "Enter");
    }

    /** @return the screen and its history, wrapped lines joined */
    String screen() {
        return tmux(null, "capture-pane", "-p", "-J", "-t", SESSION, "-S", "-3000");
    }

    /** @return whether the command has ended */
    boolean ended() {
        return tmux(null, "display-message", "-p", "-t", SESSION, "#{pane_dead}").strip().equals("1");
    }

    /**
     * Waits until the screen shows a text {@code times} times or more, as a person waits for a prompt.
     *
     * @param text what to wait for
     * @param times how many times it must be on the screen
     * @param bound how long at most
     * @return the screen then
     */
    String waitFor(String text, int times, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            String screen = screen();
            if (count(screen, text) >= times) {
                return screen;
            }
            if (System.nanoTime() > deadline || ended() && count(screen(), text) < times) {
                fail("the terminal did not show \"" + text + "\" " + times + " time(s) within " + bound.toSeconds()
                        + " s" + (ended() ? " (the command ended)" : "") + "; its screen:\n" + screen);
            }
            sleep(100);
        }
    }

    /** @see #waitFor(String, int, Duration) */
    String waitFor(String text) {
        return waitFor(text, 1, Duration.ofSeconds(60));
    }

    /** Waits until the command has ended, at most the bound; fails with the screen otherwise. */
    void waitForEnd(Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!ended()) {
            if (System.nanoTime() > deadline) {
                fail("the command in the terminal did not end within " + bound.toSeconds() + " s; its screen:\n"
                        + screen());
            }
            sleep(100);
        }
    }

    static int count(String screen, String text) {
        int count = 0;
        for (int at = screen.indexOf(text); at >= 0; at = screen.indexOf(text, at + text.length())) {
            count++;
        }
        return count;
    }

    /** Ends the session, its command and the tmux server. */
    @Override
    public void close() {
        try {
            tmux(null, "kill-server");
        } catch (AssertionError e) {
            // Already gone.
        }
    }

    private String tmux(Path directory, String... args) {
        List<String> command = new ArrayList<>(List.of("tmux", "-S", socket.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        builder.environment().keySet().removeIf(name -> name.startsWith("TMUX"));
        builder.environment().putAll(env);
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("tmux " + String.join(" ", args) + " did not end");
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("tmux " + String.join(" ", args) + " failed: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
