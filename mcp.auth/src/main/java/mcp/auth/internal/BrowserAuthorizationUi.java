package mcp.auth.internal;

import java.io.PrintStream;
import java.net.URI;
import java.util.Objects;
import java.util.function.Consumer;
import mcp.api.internal.SystemBrowser;
import mcp.api.spi.AuthorizationUi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code browser} authorization UI: prints {@code Open this URL to authorize mcp-host for
 * <server>: <url>} on stderr, tries to open the system browser on it, and receives the redirect on
 * 127.0.0.1 ({@link LoopbackReceiver}).
 *
 * <p>The browser is started by {@link SystemBrowser} (no {@code java.desktop}), which the shell's URL-mode
 * elicitation shares; when none can be started, the printed URL is the way.
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

    /** Starts the platform's URL opener without waiting for it ({@link SystemBrowser}); failures only log. */
    static void openSystemBrowser(URI url) {
        SystemBrowser.open(url).ifPresent(why -> LOG.debug("Browser: {}", why));
    }
}
