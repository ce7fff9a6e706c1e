package mcp.api;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import mcp.api.internal.Secrets;

/**
 * A server entry as a capability source read it, before validation: every field as written, any
 * combination allowed (validation, in discovery, turns a spec into a {@link ServerConfig} or a
 * clear error). Keeping the loose form lets filters and de-duplication see entries that would not
 * validate, and lets errors name the file they came from.
 *
 * @param name the server's name as written
 * @param source where the entry came from
 * @param location where in the file (a JSON pointer such as {@code /mcpServers/git}), or {@code ""}
 * @param type the declared transport kind, if any
 * @param command the stdio command, if any
 * @param args stdio arguments
 * @param env stdio environment entries
 * @param cwd stdio working directory, if any
 * @param url the HTTP/SSE endpoint, if any
 * @param headers HTTP headers
 * @param timeoutMillis the timeout in milliseconds, if set
 * @param enabled whether enabled, if set
 * @param auth the credential reference, if any
 * @param enabledTools the tool allow-list, if any
 * @param disabledTools the tool deny-list
 * @param toolTimeoutMillis the tool-call timeout in milliseconds, if set apart from {@code timeoutMillis}
 * @param inheritedEnv the host environment variables a stdio server inherits, if not all of them (see
 *     {@link StdioServerConfig#inheritedEnv()})
 * @param expandVariables whether discovery expands {@code ${VAR}} in the values; {@code false} for tools
 *     that pass values as written (Codex; Claude Code outside {@code .mcp.json})
 * @param owner what the owning tool decided about the entry, when its start depends on such a decision
 * @param valueReferences whether env and header values may use mcp-host's own value syntax (see
 *     {@link ServerConfig#valueReferences()}); {@code true} for mcp-host's own files only
 * @param protocolVersion the protocol version to speak, if the entry pins one ({@code "auto"} or a version; see
 *     {@link ServerConfig#protocolVersion()})
 * @param reconnect the entry's reconnect policy, if it sets one (see {@link ServerConfig#reconnect()})
 * @param callLimits the bounds of the entry's tool calls it sets (see {@link ServerConfig#callLimits()})
 * @param alwaysLoad the entry's tools always in the agent's tool set (see {@link ServerConfig#alwaysLoad()})
 */
public record ServerSpec(
        String name,
        SourceMetadata source,
        String location,
        Optional<String> type,
        Optional<String> command,
        List<String> args,
        Map<String, String> env,
        Optional<String> cwd,
        Optional<String> url,
        Map<String, String> headers,
        Optional<Long> timeoutMillis,
        Optional<Boolean> enabled,
        Optional<ServerConfig.AuthRef> auth,
        Optional<List<String>> enabledTools,
        List<String> disabledTools,
        Optional<Long> toolTimeoutMillis,
        Optional<List<String>> inheritedEnv,
        boolean expandVariables,
        Optional<OwnerState> owner,
        boolean valueReferences,
        Optional<String> protocolVersion,
        Optional<ReconnectPolicy> reconnect,
        CallLimits callLimits,
        AlwaysLoad alwaysLoad) {

    /** Validates and copies. */
    public ServerSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(command, "command");
        args = List.copyOf(args);
        env = Map.copyOf(env);
        Objects.requireNonNull(cwd, "cwd");
        Objects.requireNonNull(url, "url");
        headers = Map.copyOf(headers);
        Objects.requireNonNull(timeoutMillis, "timeoutMillis");
        Objects.requireNonNull(enabled, "enabled");
        Objects.requireNonNull(auth, "auth");
        enabledTools = enabledTools.map(List::copyOf);
        disabledTools = List.copyOf(disabledTools);
        Objects.requireNonNull(toolTimeoutMillis, "toolTimeoutMillis");
        inheritedEnv = inheritedEnv.map(List::copyOf);
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(protocolVersion, "protocolVersion");
        Objects.requireNonNull(reconnect, "reconnect");
        Objects.requireNonNull(callLimits, "callLimits");
        Objects.requireNonNull(alwaysLoad, "alwaysLoad");
    }

    /** An entry that sets no tools always loaded. */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools,
            Optional<Long> toolTimeoutMillis, Optional<List<String>> inheritedEnv, boolean expandVariables,
            Optional<OwnerState> owner, boolean valueReferences, Optional<String> protocolVersion,
            Optional<ReconnectPolicy> reconnect, CallLimits callLimits) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables, owner, valueReferences,
                protocolVersion, reconnect, callLimits, AlwaysLoad.NONE);
    }

    /** An entry that sets no bounds of its tool calls. */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools,
            Optional<Long> toolTimeoutMillis, Optional<List<String>> inheritedEnv, boolean expandVariables,
            Optional<OwnerState> owner, boolean valueReferences, Optional<String> protocolVersion,
            Optional<ReconnectPolicy> reconnect) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables, owner, valueReferences,
                protocolVersion, reconnect, CallLimits.NONE);
    }

    /** An entry that sets no reconnect policy. */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools,
            Optional<Long> toolTimeoutMillis, Optional<List<String>> inheritedEnv, boolean expandVariables,
            Optional<OwnerState> owner, boolean valueReferences, Optional<String> protocolVersion) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables, owner, valueReferences,
                protocolVersion, Optional.empty());
    }

    /** An entry that pins no protocol version. */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools,
            Optional<Long> toolTimeoutMillis, Optional<List<String>> inheritedEnv, boolean expandVariables,
            Optional<OwnerState> owner, boolean valueReferences) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables, owner, valueReferences,
                Optional.empty());
    }

    /** An entry with one timeout, the whole environment inherited and {@code ${VAR}} expanded. */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, Optional.empty(), Optional.empty(), true, Optional.empty(), true);
    }

    /** @return a copy with this owner's decision */
    public ServerSpec withOwner(OwnerState newOwner) {
        return new ServerSpec(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis,
                enabled, auth, enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables,
                Optional.of(newOwner), valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad);
    }

    @Override
    public String toString() {
        // Env and header values may be secrets: show names only; the URL's credentials are masked.
        return "ServerSpec[name=" + name + ", source=" + source.providerId() + ", type=" + type.orElse("")
                + ", command=" + command.orElse("") + ", url=" + url.map(Secrets::maskUrl).orElse("") + ", env=" + env.keySet()
                + ", headers=" + headers.keySet() + "]";
    }
}
