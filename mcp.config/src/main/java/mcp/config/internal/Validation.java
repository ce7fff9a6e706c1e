package mcp.config.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import mcp.api.HttpServerConfig;
import mcp.api.ServerConfig;
import mcp.api.ServerSpec;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;

/**
 * Turns a loose {@link ServerSpec} into a {@link ServerConfig}, or into every reason it cannot be
 * one. The messages are those of SPEC §3, word for word, so that users of the described system
 * recognise them; all of them are collected (not just the first) so one run shows everything to fix.
 */
public final class Validation {

    private Validation() {
    }

    /**
     * The outcome of validating one entry: a config, or the messages (never both).
     *
     * @param config the config, when the entry is valid
     * @param errors what is wrong, in rule order; empty when valid
     */
    public record Result(Optional<ServerConfig> config, List<String> errors) {
        /** Validates and copies. */
        public Result {
            Objects.requireNonNull(config, "config");
            errors = List.copyOf(errors);
            if (config.isPresent() == !errors.isEmpty()) {
                throw new IllegalArgumentException("a result has either a config or errors");
            }
        }

        /** @return whether the entry is valid */
        public boolean valid() {
            return config.isPresent();
        }

        /** @return the messages joined with {@code "; "}, as SPEC §3 reports them */
        public String joinedErrors() {
            return String.join("; ", errors);
        }
    }

    /**
     * Validates one entry (after {@code ${VAR}} expansion and filtering). Defaults: type {@code stdio}
     * when {@code command} is set, {@code http} when {@code url} is set, else {@code stdio} (which then
     * lacks its command); timeout {@link ServerConfig#DEFAULT_TIMEOUT}; enabled {@code true}. A blank
     * {@code command} or {@code url} counts as missing: it could never be started or reached. For a
     * stdio server the headers are ignored; for http/sse there are no stdio fields to ignore, since
     * a {@code command} next to a {@code url} is itself an error.
     *
     * @param spec the entry
     * @return the config, or the messages
     */
    public static Result toConfig(ServerSpec spec) {
        String name = spec.name();
        String prefix = "Server \"" + name + "\": ";
        List<String> errors = new ArrayList<>();
        ServerConfig.nameProblem(name).ifPresent(errors::add);

        Optional<String> command = spec.command().filter(c -> !c.isBlank());
        Optional<String> url = spec.url().filter(u -> !u.isBlank());
        boolean both = command.isPresent() && url.isPresent();
        if (both) {
            errors.add(prefix + "both \"command\" and \"url\" are set - server should be either stdio (command) "
                    + "OR http/sse (url), not both");
        }

        // The type as written; case is forgiven ("HTTP"), since every tool's own spelling is lower case.
        // A blank type is treated as absent, like a blank command or url.
        String type = spec.type().map(t -> t.trim().toLowerCase(Locale.ROOT)).filter(t -> !t.isEmpty())
                .orElse(url.isPresent() && command.isEmpty() ? "http" : "stdio");
        switch (type) {
            case "stdio":
                if (command.isEmpty() && !both) {
                    errors.add(prefix + "stdio server requires \"command\" field");
                }
                break;
            case "http":
            case "sse":
                if (url.isEmpty() && !both) {
                    errors.add(prefix + type + " server requires \"url\" field");
                }
                break;
            default:
                // Quote the type as written, so the user finds it in the file.
                errors.add(prefix + "unknown server type \"" + spec.type().orElse("") + "\"");
                break;
        }

        Duration timeout = positive(spec.timeoutMillis(), prefix + "\"timeout\" must be positive", errors)
                .orElse(ServerConfig.DEFAULT_TIMEOUT);
        Optional<Duration> toolTimeout = positive(spec.toolTimeoutMillis(), prefix + "\"toolTimeout\" must be positive",
                errors);

        String protocolVersion = spec.protocolVersion().orElse(ServerConfig.AUTO_PROTOCOL_VERSION);
        if (!protocolVersion.equals(ServerConfig.AUTO_PROTOCOL_VERSION) && !ServerConfig.PROTOCOL_VERSIONS.contains(protocolVersion)) {
            errors.add(prefix + "\"protocolVersion\" must be \"auto\" or one of " + String.join(", ", ServerConfig.PROTOCOL_VERSIONS)
                    + ", not \"" + protocolVersion + "\"");
        }

        if (spec.sandbox().isPresent() && !type.equals("stdio")) {
            // A sandbox confines a process mcp-host starts; a remote server is no such process.
            errors.add(prefix + "\"sandbox\" applies to stdio servers only, not to a " + type + " server");
        }

        if (!errors.isEmpty()) {
            return new Result(Optional.empty(), errors);
        }
        boolean enabled = spec.enabled().orElse(true);
        ServerConfig config;
        switch (type) {
            case "stdio":
                config = new StdioServerConfig(command.get(), spec.args(), spec.env(), spec.inheritedEnv(), spec.cwd(),
                        timeout, toolTimeout, enabled, spec.auth(), spec.enabledTools(), spec.disabledTools(),
                        spec.valueReferences(), protocolVersion, spec.reconnect(), spec.callLimits(),
                        spec.alwaysLoad(), spec.sandbox(), spec.toolPolicy(), spec.lazy());
                break;
            case "http":
                config = new HttpServerConfig(url.get(), spec.headers(), timeout, toolTimeout, enabled, spec.auth(),
                        spec.enabledTools(), spec.disabledTools(), spec.valueReferences(), protocolVersion, spec.reconnect(), spec.callLimits(),
                        spec.alwaysLoad(), headerCommands(spec), spec.toolPolicy(), spec.lazy());
                break;
            default: // "sse": any other type was an error above
                config = new SseServerConfig(url.get(), spec.headers(), timeout, toolTimeout, enabled, spec.auth(),
                        spec.enabledTools(), spec.disabledTools(), spec.valueReferences(), protocolVersion, spec.reconnect(), spec.callLimits(),
                        spec.alwaysLoad(), headerCommands(spec), spec.toolPolicy(), spec.lazy());
                break;
        }
        return new Result(Optional.of(config), List.of());
    }

    /** The entry's headers helper; {@code !command} values are added by the values auth resolver at connect. */
    private static mcp.api.HeaderCommands headerCommands(ServerSpec spec) {
        return spec.headersHelper().map(helper -> new mcp.api.HeaderCommands(Optional.of(helper), java.util.Map.of()))
                .orElse(mcp.api.HeaderCommands.NONE);
    }

    /** @return the duration of a positive number of milliseconds; a non-positive one adds the error */
    private static Optional<Duration> positive(Optional<Long> millis, String error, List<String> errors) {
        if (millis.isPresent() && millis.get() <= 0) {
            errors.add(error);
            return Optional.empty();
        }
        return millis.map(Duration::ofMillis);
    }
}
