package mcp.config.internal.sources;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;

/** The fields of one {@link ServerSpec} while a source reads them; every field starts absent. */
final class SpecBuilder {

    Optional<String> type = Optional.empty();
    Optional<String> command = Optional.empty();
    List<String> args = List.of();
    /** Insertion-ordered so that later sources of one value (Codex {@code env} over {@code env_vars}) win. */
    final Map<String, String> env = new LinkedHashMap<>();
    Optional<String> cwd = Optional.empty();
    Optional<String> url = Optional.empty();
    final Map<String, String> headers = new LinkedHashMap<>();
    Optional<Long> timeoutMillis = Optional.empty();
    Optional<Boolean> enabled = Optional.empty();
    Optional<AuthRef> auth = Optional.empty();
    Optional<List<String>> enabledTools = Optional.empty();
    List<String> disabledTools = List.of();
    Optional<Long> toolTimeoutMillis = Optional.empty();
    Optional<List<String>> inheritedEnv = Optional.empty();
    boolean expandVariables = true;
    /** mcp-host's own value syntax ({@code !command}, a variable's name) is for its own files only. */
    boolean valueReferences = false;
    /** The protocol version an entry pins (mcp-host's own format only). */
    Optional<String> protocolVersion = Optional.empty();
    /** The reconnect policy an entry sets (mcp-host's own format only). */
    Optional<mcp.api.ReconnectPolicy> reconnect = Optional.empty();
    /** The bounds of tool calls an entry sets (mcp-host's own format only). */
    mcp.api.CallLimits callLimits = mcp.api.CallLimits.NONE;
    /** The tools an entry keeps in the agent's tool set under deferred loading (mcp-host's own format only). */
    mcp.api.AlwaysLoad alwaysLoad = mcp.api.AlwaysLoad.NONE;
    /** The sandbox an entry asks for (mcp-host's {@code sandbox}, VS Code's {@code sandboxEnabled}). */
    Optional<mcp.api.Sandbox> sandbox = Optional.empty();
    /** The command whose JSON output gives the headers (Claude Code's {@code headersHelper}). */
    Optional<mcp.api.HeaderCommands.Helper> headersHelper = Optional.empty();
    /** The per-tool decisions of the tool that owns the file, in its precedence (first match wins). */
    final List<mcp.api.ToolRule> toolRules = new java.util.ArrayList<>();
    /** Whether the entry asks to be started lazily (mcp-host's own format only). */
    Optional<mcp.api.LazyStart> lazy = Optional.empty();

    ServerSpec build(String name, SourceMetadata source, String location) {
        return new ServerSpec(name, source, location, type, command, args, env, cwd, url, headers,
                timeoutMillis, enabled, auth, enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv,
                expandVariables, Optional.empty(), valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad,
                sandbox, headersHelper, new mcp.api.ToolPolicy(toolRules), lazy);
    }
}
