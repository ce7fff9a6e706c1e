package mcp.api.internal;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Opens a URL in the user's browser without {@code java.desktop}, so that the runtime image stays without AWT:
 * the OAuth login's browser UI and the shell's URL-mode elicitation share it. The browser is started as a separate
 * process whose output is discarded and which is never waited for: {@code xdg-open} (Linux and other Unixes, only
 * when a display is set: without one it could start a text browser on the user's terminal), {@code open} (macOS),
 * {@code rundll32 url.dll,FileProtocolHandler} (Windows). When none can be started, the caller's printed URL is
 * the way.
 */
public final class SystemBrowser {

    private SystemBrowser() {
    }

    /**
     * Starts the platform's URL opener without waiting for it.
     *
     * @param url the URL to open
     * @return why no browser was started (for a DEBUG log: the URL is not in it), or empty when one was
     */
    public static Optional<String> open(URI url) {
        List<String> command = command(System.getProperty("os.name", ""), System.getenv(), url);
        if (command.isEmpty()) {
            return Optional.of("no display: not starting a browser");
        }
        try {
            new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(nullFile()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.of("could not start a browser with " + command.get(0) + ": " + e.getClass().getSimpleName());
        }
    }

    /**
     * @param osName the {@code os.name} property
     * @param env the environment
     * @param url the URL to open
     * @return the command that opens it in the user's browser, or empty when there is no display
     */
    public static List<String> command(String osName, Map<String, String> env, URI url) {
        String os = osName.toLowerCase(Locale.ROOT);
        if (os.startsWith("windows")) {
            return List.of("rundll32", "url.dll,FileProtocolHandler", url.toString());
        }
        if (os.startsWith("mac")) {
            return List.of("open", url.toString());
        }
        boolean display = !env.getOrDefault("DISPLAY", "").isEmpty() || !env.getOrDefault("WAYLAND_DISPLAY", "").isEmpty();
        return display ? List.of("xdg-open", url.toString()) : List.of();
    }

    private static File nullFile() {
        return new File(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows") ? "NUL"
                : "/dev/null");
    }
}
