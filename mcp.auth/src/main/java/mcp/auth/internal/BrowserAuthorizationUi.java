package mcp.auth.internal;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import mcp.api.spi.AuthorizationUi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code browser} authorization UI: prints {@code Open this URL to authorize mcp-host for
 * <server>: <url>} on stderr, tries to open the system browser on it, and receives the redirect on
 * 127.0.0.1 ({@link LoopbackReceiver}).
 *
 * <p>The browser is started as a separate process whose output is discarded and which is never
 * waited for: {@code xdg-open} (Linux and other Unixes, only when a display is set: without one it
 * could start a text browser on the user's terminal), {@code open} (macOS), {@code rundll32
 * url.dll,FileProtocolHandler} (Windows). When none can be started, the printed URL is the way.
 * No {@code java.desktop}: the runtime image stays without AWT.
 */
public final class BrowserAuthorizationUi implements AuthorizationUi {

    /** The id of this UI. */
    public static final String ID = "browser";

    private static final Logger LOG = LoggerFactory.getLogger(BrowserAuthorizationUi.class);

    private final PrintStream err;
    private final Consumer<URI> browser;

    /** The UI on the process's stderr and the system browser, as ServiceLoader makes it. */
    public BrowserAuthorizationUi() {
        this(System.err, BrowserAuthorizationUi::openSystemBrowser);
    }

    /**
     * @param err where the URL is printed
     * @param browser opens a URL (must not block)
     */
    BrowserAuthorizationUi(PrintStream err, Consumer<URI> browser) {
        this.err = Objects.requireNonNull(err, "err");
        this.browser = Objects.requireNonNull(browser, "browser");
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Receiver open(String serverName, int preferredPort) {
        return new LoopbackReceiver(serverName, preferredPort, url -> show(serverName, url));
    }

    @Override
    public Receiver open(String serverName, URI redirectUri) {
        return new LoopbackReceiver(serverName, redirectUri, url -> show(serverName, url));
    }

    private void show(String serverName, URI url) {
        err.println("Open this URL to authorize mcp-host for " + serverName + ": " + url);
        err.flush();
        browser.accept(url);
    }

    /** Starts the platform's URL opener without waiting for it; failures only log. */
    static void openSystemBrowser(URI url) {
        List<String> command = command(System.getProperty("os.name", ""), System.getenv(), url);
        if (command.isEmpty()) {
            LOG.debug("No display: not starting a browser");
            return;
        }
        try {
            new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(nullFile()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not start a browser with {}: {}", command.get(0), e.toString());
        }
    }

    /**
     * @param osName the {@code os.name} property
     * @param env the environment
     * @param url the URL to open
     * @return the command that opens it in the user's browser, or empty when there is no display
     */
    static List<String> command(String osName, Map<String, String> env, URI url) {
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
