package mcp.api;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Commands whose output goes into the headers of a remote server: they give a short-lived credential
 * (a token a company's login tool mints), so the HTTP transports run them again when the server refuses
 * a request (HTTP 401 or 403) and send that request once more with the new headers.
 *
 * <p>Both kinds run with {@code /bin/sh -c}, stdin empty, stderr never shown, at most
 * {@code mcp.transport.http.HttpTransports.COMMAND_TIMEOUT} (10 s) each.
 *
 * @param helper a command that prints a JSON object of header names to string values (Claude Code's
 *     {@code headersHelper}), run by the transport before it connects; its headers replace configured
 *     ones of the same name
 * @param values the commands of single header values (mcp-host's {@code "!command"} values): header name
 *     to command, without the {@code !}. The {@code values} auth resolver runs them before connect and
 *     records them here, so that the transport can run them again; empty by default
 */
public record HeaderCommands(Optional<Helper> helper, Map<String, String> values) {

    /** No commands: the headers are what the config says. */
    public static final HeaderCommands NONE = new HeaderCommands(Optional.empty(), Map.of());

    /** Validates and copies. */
    public HeaderCommands {
        Objects.requireNonNull(helper, "helper");
        values = Map.copyOf(values);
    }

    /**
     * A command that prints headers as JSON, as Claude Code's {@code headersHelper}. It gets the host's
     * environment plus {@code CLAUDE_CODE_MCP_SERVER_NAME} and {@code CLAUDE_CODE_MCP_SERVER_URL} (the server's
     * name and URL), the names Claude Code sets, so that one helper can serve several servers.
     *
     * @param command the shell command, as written
     * @param directory the working directory it runs in, if not the host's
     */
    public record Helper(String command, Optional<String> directory) {
        /** Validates. */
        public Helper {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(directory, "directory");
        }

        @Override
        public String toString() {
            // The command may carry a secret in an argument: never shown whole.
            return "Helper[directory=" + directory.orElse("") + "]";
        }
    }

    /** @return whether there is nothing to run */
    public boolean isEmpty() {
        return helper.isEmpty() && values.isEmpty();
    }

    /** @return a copy with these value commands */
    public HeaderCommands withValues(Map<String, String> newValues) {
        return new HeaderCommands(helper, newValues);
    }

    @Override
    public String toString() {
        return "HeaderCommands[helper=" + helper.isPresent() + ", values=" + values.keySet() + "]";
    }
}
