package mcp.api.spi;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import mcp.api.ServerConfig;

/**
 * What a {@link TransportProvider} needs to open a transport.
 *
 * @param serverName the server's name, for thread names and messages
 * @param config the config with secrets already resolved
 * @param workingDirectory the directory a relative {@code cwd} is resolved against, and the default
 *     working directory of a child process
 * @param maxMessageBytes the largest inbound message accepted; a larger one closes the transport
 *     with an error. Default {@link #DEFAULT_MAX_MESSAGE_BYTES}
 * @param closeStepTimeout the bound of each step of a close (for stdio: wait after closing stdin,
 *     wait after terminate, wait after kill). Default {@link #DEFAULT_CLOSE_STEP_TIMEOUT}
 * @param auth what a transport may use to obtain credentials itself (the HTTP transport's OAuth
 *     client); empty by default: a server that asks for authorization then fails with a clear error
 */
public record TransportRequest(
        String serverName,
        ServerConfig config,
        Path workingDirectory,
        long maxMessageBytes,
        Duration closeStepTimeout,
        Optional<AuthServices> auth) {

    /** 16 MiB. */
    public static final long DEFAULT_MAX_MESSAGE_BYTES = 16L * 1024 * 1024;

    /** Two seconds. */
    public static final Duration DEFAULT_CLOSE_STEP_TIMEOUT = Duration.ofSeconds(2);

    /** Validates. */
    public TransportRequest {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(workingDirectory, "workingDirectory");
        Objects.requireNonNull(closeStepTimeout, "closeStepTimeout");
        Objects.requireNonNull(auth, "auth");
        if (maxMessageBytes <= 0) {
            throw new IllegalArgumentException("maxMessageBytes must be positive");
        }
    }

    /** The request without {@link #auth()}. */
    public TransportRequest(String serverName, ServerConfig config, Path workingDirectory, long maxMessageBytes,
            Duration closeStepTimeout) {
        this(serverName, config, workingDirectory, maxMessageBytes, closeStepTimeout, Optional.empty());
    }

    /**
     * @param serverName the server's name
     * @param config its resolved config
     * @param workingDirectory the working directory
     * @return a request with the default limits
     */
    public static TransportRequest of(String serverName, ServerConfig config, Path workingDirectory) {
        return new TransportRequest(serverName, config, workingDirectory, DEFAULT_MAX_MESSAGE_BYTES,
                DEFAULT_CLOSE_STEP_TIMEOUT);
    }

    /** @return a copy with this message size limit */
    public TransportRequest withMaxMessageBytes(long bytes) {
        return new TransportRequest(serverName, config, workingDirectory, bytes, closeStepTimeout, auth);
    }

    /** @return a copy with this close step bound */
    public TransportRequest withCloseStepTimeout(Duration timeout) {
        return new TransportRequest(serverName, config, workingDirectory, maxMessageBytes, timeout, auth);
    }

    /** @return a copy with these auth services */
    public TransportRequest withAuth(AuthServices services) {
        return new TransportRequest(serverName, config, workingDirectory, maxMessageBytes, closeStepTimeout,
                Optional.of(services));
    }
}
