package mcp.api;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import mcp.api.internal.Secrets;

/**
 * A server started as a child process that speaks newline-delimited JSON-RPC on stdin/stdout.
 *
 * @param command the executable, run directly (never through a shell); looked up on {@code PATH}
 * @param args its arguments
 * @param env variables added to (or replacing those of) the inherited environment
 * @param inheritedEnv the names of the host's environment variables the server inherits (those that are
 *     set); absent: the whole environment. Codex passes only a few ({@code PATH}, {@code HOME}, ...) and
 *     the ones a server names in {@code env_vars}
 * @param cwd the working directory; absent: the host's working directory
 * @param timeout see {@link ServerConfig#timeout()}
 * @param toolTimeout see {@link ServerConfig#toolTimeout()}
 * @param enabled see {@link ServerConfig#enabled()}
 * @param auth see {@link ServerConfig#auth()}
 * @param enabledTools see {@link ServerConfig#enabledTools()}
 * @param disabledTools see {@link ServerConfig#disabledTools()}
 * @param valueReferences see {@link ServerConfig#valueReferences()}
 * @param protocolVersion see {@link ServerConfig#protocolVersion()}
 * @param reconnect see {@link ServerConfig#reconnect()}
 * @param callLimits see {@link ServerConfig#callLimits()}
 * @param alwaysLoad see {@link ServerConfig#alwaysLoad()}
 * @param sandbox the sandbox the server runs in (the native format's {@code sandbox}, VS Code's
 *     {@code sandboxEnabled}, or the host's rule for project servers); absent: none. A server whose sandbox cannot
 *     be had is never started without it: see {@code docs/sandbox.md}
 * @param toolPolicy see {@link ServerConfig#toolPolicy()}
 * @param lazy see {@link ServerConfig#lazy()}
 */
public record StdioServerConfig(
        String command,
        List<String> args,
        Map<String, String> env,
        Optional<List<String>> inheritedEnv,
        Optional<String> cwd,
        Duration timeout,
        Optional<Duration> toolTimeout,
        boolean enabled,
        Optional<AuthRef> auth,
        Optional<List<String>> enabledTools,
        List<String> disabledTools,
        boolean valueReferences,
        String protocolVersion,
        Optional<ReconnectPolicy> reconnect,
        CallLimits callLimits,
        AlwaysLoad alwaysLoad,
        Optional<Sandbox> sandbox,
        ToolPolicy toolPolicy,
        Optional<LazyStart> lazy) implements ServerConfig {

    /** Validates and copies. */
    public StdioServerConfig {
        Objects.requireNonNull(command, "command");
        args = List.copyOf(args);
        env = Map.copyOf(env);
        inheritedEnv = inheritedEnv.map(List::copyOf);
        Objects.requireNonNull(cwd, "cwd");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(toolTimeout, "toolTimeout");
        Objects.requireNonNull(auth, "auth");
        enabledTools = enabledTools.map(List::copyOf);
        disabledTools = List.copyOf(disabledTools);
        Objects.requireNonNull(protocolVersion, "protocolVersion");
        Objects.requireNonNull(reconnect, "reconnect");
        Objects.requireNonNull(callLimits, "callLimits");
        Objects.requireNonNull(alwaysLoad, "alwaysLoad");
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(toolPolicy, "toolPolicy");
        Objects.requireNonNull(lazy, "lazy");
    }

    /** A config of these fields that is started when the host loads (not {@linkplain ServerConfig#lazy() lazy}). */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<List<String>> inheritedEnv, Optional<String> cwd, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad, Optional<Sandbox> sandbox, ToolPolicy toolPolicy) {
        this(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, toolPolicy, Optional.empty());
    }

    /** A config of these fields that runs the server in this sandbox, without per-tool decisions of a tool that owns it ({@link ToolPolicy#NONE}). */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<List<String>> inheritedEnv, Optional<String> cwd, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad, Optional<Sandbox> sandbox) {
        this(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, ToolPolicy.NONE);
    }

    /** A config of these fields with these per-tool decisions of a tool that owns it, that runs the server without a sandbox. */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<List<String>> inheritedEnv, Optional<String> cwd, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad, ToolPolicy toolPolicy) {
        this(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, Optional.empty(), toolPolicy);
    }

    /** A config of these fields that runs the server without a sandbox and without per-tool decisions of a tool that owns it ({@link ToolPolicy#NONE}). */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<List<String>> inheritedEnv, Optional<String> cwd, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad) {
        this(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, Optional.empty(), ToolPolicy.NONE);
    }

    /** A config of these fields whose tools are not always loaded by it ({@link AlwaysLoad#NONE}). */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<List<String>> inheritedEnv, Optional<String> cwd, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits) {
        this(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, AlwaysLoad.NONE);
    }

    /** A config of these fields whose tool calls have no bounds of their own beside the timeouts. */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<List<String>> inheritedEnv, Optional<String> cwd, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect) {
        this(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, CallLimits.NONE);
    }

    /** A config of these fields reconnected by the manager's default policy. */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<List<String>> inheritedEnv, Optional<String> cwd, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion) {
        this(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, Optional.empty());
    }

    /** A config of these fields that finds the server's protocol era itself ({@code protocolVersion} "auto"). */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<List<String>> inheritedEnv, Optional<String> cwd, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences) {
        this(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, ServerConfig.AUTO_PROTOCOL_VERSION);
    }

    /** A config that inherits the whole environment, bounds tool calls by {@code timeout}, and may use value references. */
    public StdioServerConfig(String command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Duration timeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools,
            List<String> disabledTools) {
        this(command, args, env, Optional.empty(), cwd, timeout, Optional.empty(), enabled, auth, enabledTools,
                disabledTools, true);
    }

    /**
     * @param command the executable
     * @param args its arguments
     * @return a config with every other setting at its default
     */
    public static StdioServerConfig of(String command, List<String> args) {
        return new StdioServerConfig(command, args, Map.of(), Optional.empty(), DEFAULT_TIMEOUT, true,
                Optional.empty(), Optional.empty(), List.of());
    }

    @Override
    public String type() {
        return "stdio";
    }

    /** @return a copy with these environment entries */
    public StdioServerConfig withEnv(Map<String, String> newEnv) {
        return new StdioServerConfig(command, args, newEnv, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth,
                enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, toolPolicy, lazy);
    }

    /** @return a copy with this working directory */
    public StdioServerConfig withCwd(String newCwd) {
        return new StdioServerConfig(command, args, env, inheritedEnv, Optional.of(newCwd), timeout, toolTimeout,
                enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, toolPolicy, lazy);
    }

    /** @return a copy with this timeout */
    public StdioServerConfig withTimeout(Duration newTimeout) {
        return new StdioServerConfig(command, args, env, inheritedEnv, cwd, newTimeout, toolTimeout, enabled, auth,
                enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, toolPolicy, lazy);
    }

    @Override
    public String toString() {
        // Env values may be secrets: show names only; secret-looking arguments are masked.
        return "StdioServerConfig[command=" + command + ", args=" + Secrets.maskArgs(args)
                + ", env=" + env.keySet()
                + inheritedEnv.map(names -> ", inheritedEnv=" + names).orElse("") + ", cwd="
                + cwd.orElse("") + ", timeout=" + timeout.toMillis() + "ms"
                + toolTimeout.map(t -> ", toolTimeout=" + t.toMillis() + "ms").orElse("") + (callLimits.isEmpty() ? "" : ", " + callLimits) + (alwaysLoad.isEmpty() ? "" : ", " + alwaysLoad) + lazy.map(l -> ", " + l).orElse("") + sandbox.map(b -> ", " + b).orElse("") + ", enabled=" + enabled + "]";
    }

    /** @return a copy with this reconnect policy (empty: the manager's default) */
    public StdioServerConfig withReconnect(Optional<ReconnectPolicy> newReconnect) {
        return new StdioServerConfig(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, newReconnect, callLimits, alwaysLoad, sandbox, toolPolicy, lazy);
    }

    /** @return a copy with these bounds of tool calls ({@link CallLimits#NONE}: the manager's defaults) */
    public StdioServerConfig withCallLimits(CallLimits newCallLimits) {
        return new StdioServerConfig(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, newCallLimits, alwaysLoad, sandbox, toolPolicy, lazy);
    }

    /** @return a copy with these tools always loaded ({@link AlwaysLoad#NONE}: none by its config) */
    public StdioServerConfig withAlwaysLoad(AlwaysLoad newAlwaysLoad) {
        return new StdioServerConfig(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, newAlwaysLoad, sandbox, toolPolicy, lazy);
    }

    /** @return a copy with these per-tool decisions of the tool that owns it ({@link ToolPolicy#NONE}: none) */
    public StdioServerConfig withToolPolicy(ToolPolicy newToolPolicy) {
        return new StdioServerConfig(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, newToolPolicy, lazy);
    }

    /** @return a copy run in this sandbox (empty: none) */
    public StdioServerConfig withSandbox(Optional<Sandbox> newSandbox) {
        return new StdioServerConfig(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, newSandbox, toolPolicy, lazy);
    }

    /** @return a copy that is lazy as given (empty: started when the host loads) */
    @Override
    public StdioServerConfig withLazy(Optional<LazyStart> newLazy) {
        return new StdioServerConfig(command, args, env, inheritedEnv, cwd, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, toolPolicy, newLazy);
    }
}
