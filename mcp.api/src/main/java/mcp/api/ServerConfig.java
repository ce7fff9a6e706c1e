package mcp.api;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How to reach one MCP server: one record per transport kind. Configs hold values as written
 * ({@code ${VAR}} already expanded by discovery, secrets still unresolved); an
 * {@link mcp.api.spi.AuthResolver} turns them into concrete values on a copy just before connect.
 *
 * <p>Settings shared by every kind:
 * <ul>
 *   <li>{@link #timeout()}: the connect timeout (initialize and the first {@code tools/list}) and the
 *       default request timeout; default {@link #DEFAULT_TIMEOUT} (30 s);</li>
 *   <li>{@link #toolTimeout()}: the bound of a {@code tools/call}, when it differs from
 *       {@link #timeout()} (Codex's {@code tool_timeout_sec}); absent: {@link #timeout()};</li>
 *   <li>{@link #enabled()}: default {@code true};</li>
 *   <li>{@link #auth()}: a reference to a stored credential, absent by default;</li>
 *   <li>{@link #enabledTools()} (absent: all tools) and {@link #disabledTools()} (default none);</li>
 *   <li>{@link #reconnect()}: absent by default (the manager's policy);</li>
 *   <li>{@link #callLimits()}: the idle timeout, the absolute cap and the reset on progress of its tool calls;
 *       {@link CallLimits#NONE} by default (the manager's defaults);</li>
 *   <li>{@link #alwaysLoad()}: the tools that stay in the agent's tool set under deferred loading;
 *       {@link AlwaysLoad#NONE} by default;</li>
 *   <li>{@link #toolPolicy()}: the per-tool decisions of the tool that owns the config (which tools it denies,
 *       which calls it confirms); {@link ToolPolicy#NONE} by default;</li>
 *   <li>{@link #lazy()}: whether the server waits for the first call of one of its tools to start, and how long
 *       it may then be idle; absent by default (started when the host loads, unless the host makes every server
 *       lazy).</li>
 * </ul>
 */
public sealed interface ServerConfig permits StdioServerConfig, HttpServerConfig, SseServerConfig {

    /** The timeout used when a config sets none. */
    Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** @return the transport kind: {@code stdio}, {@code http} or {@code sse}; also the transport provider id */
    String type();

    /** {@link #protocolVersion()} that lets the client find the server's era itself. */
    String AUTO_PROTOCOL_VERSION = "auto";

    /**
     * Every MCP protocol version mcp-host speaks, newest first: the stateless 2026-07-28, then those of the
     * {@code initialize} handshake. The one list the client, its options and config validation use.
     */
    java.util.List<String> PROTOCOL_VERSIONS = java.util.List.of("2026-07-28", "2025-11-25", "2025-06-18",
            "2025-03-26", "2024-11-05");

    /** @return the connect and default request timeout */
    Duration timeout();

    /**
     * @return the MCP protocol version to speak: {@value #AUTO_PROTOCOL_VERSION} (the default: the client probes
     *     the server's era), or a version, which is then the only one spoken (the native format's
     *     {@code protocolVersion})
     */
    String protocolVersion();

    /**
     * @return how the server is started again when its connection closes by itself (the native format's
     *     {@code reconnect}); empty: the manager's default ({@link ReconnectPolicy#DEFAULT} unless its builder
     *     sets another)
     */
    Optional<ReconnectPolicy> reconnect();

    /**
     * @return the bounds of its tool calls beside the timeout (the native format's {@code idleTimeout},
     *     {@code maxTotalTimeout} and {@code resetTimeoutOnProgress}); {@link CallLimits#NONE}: the manager's
     */
    CallLimits callLimits();

    /**
     * @return the server's tools that stay in the agent's tool set when deferred loading is on (the native format's
     *     {@code alwaysLoad}: {@code true} or a list of tool names); {@link AlwaysLoad#NONE}: none by its config
     */
    AlwaysLoad alwaysLoad();

    /**
     * @return the per-tool decisions of the tool that owns the config (Claude Code's {@code permissions} rules,
     *     Codex's tool lists and approval modes, Gemini CLI's {@code includeTools}, {@code excludeTools} and
     *     {@code trust}); {@link ToolPolicy#NONE} for mcp-host's own configs and for the tools whose decisions
     *     mcp-host does not read. A tool it denies is never offered ({@link #exposesTool(String)})
     */
    ToolPolicy toolPolicy();

    /**
     * @param tool a tool of this server
     * @return what the owning tool decided about calling it ({@link ToolPolicy#decide})
     */
    default CallPolicy callPolicy(ToolDefinition tool) {
        return toolPolicy().decide(tool);
    }

    /**
     * @return how the server is started lazily (the native format's {@code lazy}): not at load, but on the first call
     *     of one of its cached tools, and stopped again after its idle timeout; empty: started when the host loads
     *     (unless the host makes every server lazy). Not part of the server's definition: making a server lazy
     *     neither asks for a new approval nor makes its cached tools stale
     */
    Optional<LazyStart> lazy();

    /**
     * @param lazy how the server is started lazily; empty: when the host loads
     * @return a copy of this config with it
     */
    ServerConfig withLazy(Optional<LazyStart> lazy);

    /** @return the bound of a tool call, if it differs from {@link #timeout()} */
    Optional<Duration> toolTimeout();

    /** @return the bound of a tool call: {@link #toolTimeout()}, else {@link #timeout()} */
    default Duration toolCallTimeout() {
        return toolTimeout().orElse(timeout());
    }

    /**
     * @return whether env and header values may use mcp-host's own value syntax (a {@code !command}, or the
     *     name of an environment variable), which the {@code values} auth resolver resolves; {@code false} for
     *     entries of other tools' files, whose values those tools pass as written
     */
    boolean valueReferences();

    /** @return whether the server should be started at all */
    boolean enabled();

    /** @return the stored credential to use, if any */
    Optional<AuthRef> auth();

    /** @return the only tools to expose, or empty to expose all */
    Optional<List<String>> enabledTools();

    /** @return tools never to expose */
    List<String> disabledTools();

    /**
     * How a server is authenticated: a reference to a credential held by the auth storage, and the
     * settings of the OAuth client that obtains it.
     *
     * @param type {@code oauth} or {@code apikey}
     * @param credentialId the storage key of the credential
     * @param options OAuth client settings, as written (values may be {@code !command} or
     *     environment-variable references, resolved like header values): {@code clientId},
     *     {@code clientSecret} (a pre-registered client), {@code scope} (space-separated),
     *     {@code grant} ({@code authorization_code}, the default, or {@code client_credentials}),
     *     {@code privateKey} (PEM, for {@code private_key_jwt}), {@code signingAlgorithm}
     *     ({@code ES256}), {@code callbackPort} (the loopback redirect port), {@code redirectUri} (the loopback
     *     redirect URI a pre-registered client was registered with, when it is not mcp-host's own
     *     {@code http://127.0.0.1:<port>/callback}), {@code authorizationEndpoint} and {@code tokenEndpoint}
     *     (the authorization server's endpoints, instead of discovering them), {@code authServerMetadataUrl} (the
     *     URL of its metadata, instead of discovering it), {@code resource} (the RFC 8707 resource indicator,
     *     instead of the one the server's metadata names), {@code tokenEndpointAuthMethod}
     *     ({@code client_secret_basic}, {@code client_secret_post}, {@code none}); unknown keys are kept
     */
    record AuthRef(String type, String credentialId, java.util.Map<String, String> options) {
        /** Checks that both parts are present and copies the options. */
        public AuthRef {
            java.util.Objects.requireNonNull(type, "type");
            java.util.Objects.requireNonNull(credentialId, "credentialId");
            options = java.util.Map.copyOf(options);
        }

        /**
         * @param type {@code oauth} or {@code apikey}
         * @param credentialId the storage key of the credential
         */
        public AuthRef(String type, String credentialId) {
            this(type, credentialId, java.util.Map.of());
        }

        /** @return a copy with these options */
        public AuthRef withOptions(java.util.Map<String, String> newOptions) {
            return new AuthRef(type, credentialId, newOptions);
        }

        @Override
        public String toString() {
            // Option values may be secrets (clientSecret, privateKey): names only.
            return "AuthRef[type=" + type + ", credentialId=" + credentialId + ", options=" + options.keySet() + "]";
        }
    }

    /** The characters a server name may use. */
    java.util.regex.Pattern NAME_PATTERN = java.util.regex.Pattern.compile("^[a-zA-Z0-9_.-]+$");

    /** The longest server name. */
    int MAX_NAME_LENGTH = 100;

    /**
     * Checks a server name: not empty, at most {@value #MAX_NAME_LENGTH} characters, only
     * letters, digits, {@code _}, {@code .} and {@code -}.
     *
     * @param name a server name
     * @return what is wrong with it, or empty when it is valid
     */
    static Optional<String> nameProblem(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of("Server name is empty");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            return Optional.of("Server \"" + name.substring(0, 20) + "...\": name is longer than "
                    + MAX_NAME_LENGTH + " characters (" + name.length() + ")");
        }
        if (!NAME_PATTERN.matcher(name).matches()) {
            return Optional.of("Server \"" + name + "\": name may only contain letters, digits, '_', '.' and '-'");
        }
        return Optional.empty();
    }

    /**
     * @return whether the tool of this name passes {@link #enabledTools()} and {@link #disabledTools()}, and the
     *     owning tool does not deny it ({@link #toolPolicy()})
     */
    default boolean exposesTool(String toolName) {
        return enabledTools().map(list -> list.contains(toolName)).orElse(true)
                && !disabledTools().contains(toolName) && toolPolicy().denial(toolName).isEmpty();
    }
}
