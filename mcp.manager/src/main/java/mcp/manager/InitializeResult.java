package mcp.manager;

import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * What a server said about itself in the {@code initialize} handshake.
 *
 * @param protocolVersion the protocol version agreed
 * @param serverName the server's {@code serverInfo.name} ({@code ""} when absent)
 * @param serverVersion the server's {@code serverInfo.version} ({@code ""} when absent)
 * @param capabilities the server's capabilities object
 * @param instructions the server's instructions, if any
 */
public record InitializeResult(String protocolVersion, String serverName, String serverVersion,
        JsonNode capabilities, Optional<String> instructions) {

    /** Validates. */
    public InitializeResult {
        Objects.requireNonNull(protocolVersion, "protocolVersion");
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(serverVersion, "serverVersion");
        Objects.requireNonNull(capabilities, "capabilities");
        Objects.requireNonNull(instructions, "instructions");
    }

    /** @return whether the server declares the {@code tools} capability */
    public boolean hasTools() {
        return capabilities.has("tools");
    }
}
