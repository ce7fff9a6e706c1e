package mcp.api;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import mcp.api.internal.Secrets;

/**
 * A server reached over the legacy HTTP+SSE transport: an SSE stream plus a POST endpoint it names.
 *
 * @param url the endpoint
 * @param headers headers sent with every request
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
 * @param headerCommands the commands whose output goes into the headers, run again when the server refuses a
 *     request; {@link HeaderCommands#NONE} by default
 * @param toolPolicy see {@link ServerConfig#toolPolicy()}
 * @param lazy see {@link ServerConfig#lazy()}
 */
public record SseServerConfig(
        String url,
        Map<String, String> headers,
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
        HeaderCommands headerCommands,
        ToolPolicy toolPolicy,
        Optional<LazyStart> lazy) implements ServerConfig {

    /** Validates and copies. */
    public SseServerConfig {
        Objects.requireNonNull(url, "url");
        headers = Map.copyOf(headers);
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(toolTimeout, "toolTimeout");
        Objects.requireNonNull(auth, "auth");
        enabledTools = enabledTools.map(List::copyOf);
        disabledTools = List.copyOf(disabledTools);
        Objects.requireNonNull(protocolVersion, "protocolVersion");
        Objects.requireNonNull(reconnect, "reconnect");
        Objects.requireNonNull(callLimits, "callLimits");
        Objects.requireNonNull(alwaysLoad, "alwaysLoad");
        Objects.requireNonNull(headerCommands, "headerCommands");
        Objects.requireNonNull(toolPolicy, "toolPolicy");
        Objects.requireNonNull(lazy, "lazy");
    }

    /** A config of these fields that is started when the host loads (not {@linkplain ServerConfig#lazy() lazy}). */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad, HeaderCommands headerCommands, ToolPolicy toolPolicy) {
        this(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, headerCommands, toolPolicy, Optional.empty());
    }

    /** A config of these fields with these header commands, without per-tool decisions of a tool that owns it ({@link ToolPolicy#NONE}). */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad, HeaderCommands headerCommands) {
        this(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, headerCommands, ToolPolicy.NONE);
    }

    /** A config of these fields with these per-tool decisions of a tool that owns it, whose headers come from no command ({@link HeaderCommands#NONE}). */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad, ToolPolicy toolPolicy) {
        this(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, HeaderCommands.NONE, toolPolicy);
    }

    /** A config of these fields whose headers come from no command ({@link HeaderCommands#NONE}), without per-tool decisions of a tool that owns it ({@link ToolPolicy#NONE}). */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad) {
        this(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, HeaderCommands.NONE, ToolPolicy.NONE);
    }

    /** A config of these fields whose tools are not always loaded by it ({@link AlwaysLoad#NONE}). */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect, CallLimits callLimits) {
        this(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, AlwaysLoad.NONE);
    }

    /** A config of these fields whose tool calls have no bounds of their own beside the timeouts. */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion, Optional<ReconnectPolicy> reconnect) {
        this(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, CallLimits.NONE);
    }

    /** A config of these fields reconnected by the manager's default policy. */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences, String protocolVersion) {
        this(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, Optional.empty());
    }

    /** A config of these fields that finds the server's protocol era itself ({@code protocolVersion} "auto"). */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, Optional<Duration> toolTimeout, boolean enabled, Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools, boolean valueReferences) {
        this(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, ServerConfig.AUTO_PROTOCOL_VERSION);
    }

    /** A config that bounds tool calls by {@code timeout} and may use value references. */
    public SseServerConfig(String url, Map<String, String> headers, Duration timeout, boolean enabled,
            Optional<AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools) {
        this(url, headers, timeout, Optional.empty(), enabled, auth, enabledTools, disabledTools, true);
    }

    /**
     * @param url the endpoint
     * @return a config with every other setting at its default
     */
    public static SseServerConfig of(String url) {
        return new SseServerConfig(url, Map.of(), DEFAULT_TIMEOUT, true, Optional.empty(), Optional.empty(),
                List.of());
    }

    @Override
    public String type() {
        return "sse";
    }

    /** @return a copy with these headers */
    public SseServerConfig withHeaders(Map<String, String> newHeaders) {
        return new SseServerConfig(url, newHeaders, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools,
                valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, headerCommands, toolPolicy, lazy);
    }

    @Override
    public String toString() {
        // Header values may be secrets: show names only; the URL's credentials are masked.
        return "SseServerConfig[url=" + Secrets.maskUrl(url) + ", headers=" + headers.keySet() + ", timeout=" + timeout.toMillis()
                + "ms" + toolTimeout.map(t -> ", toolTimeout=" + t.toMillis() + "ms").orElse("") + (callLimits.isEmpty() ? "" : ", " + callLimits) + (alwaysLoad.isEmpty() ? "" : ", " + alwaysLoad) + lazy.map(l -> ", " + l).orElse("") + ", enabled=" + enabled
                + "]";
    }

    /** @return a copy with this reconnect policy (empty: the manager's default) */
    public SseServerConfig withReconnect(Optional<ReconnectPolicy> newReconnect) {
        return new SseServerConfig(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, newReconnect, callLimits, alwaysLoad, headerCommands, toolPolicy, lazy);
    }

    /** @return a copy with these bounds of tool calls ({@link CallLimits#NONE}: the manager's defaults) */
    public SseServerConfig withCallLimits(CallLimits newCallLimits) {
        return new SseServerConfig(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, newCallLimits, alwaysLoad, headerCommands, toolPolicy, lazy);
    }

    /** @return a copy with these tools always loaded ({@link AlwaysLoad#NONE}: none by its config) */
    public SseServerConfig withAlwaysLoad(AlwaysLoad newAlwaysLoad) {
        return new SseServerConfig(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, newAlwaysLoad, headerCommands, toolPolicy, lazy);
    }

    /** @return a copy with these per-tool decisions of the tool that owns it ({@link ToolPolicy#NONE}: none) */
    public SseServerConfig withToolPolicy(ToolPolicy newToolPolicy) {
        return new SseServerConfig(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, headerCommands, newToolPolicy, lazy);
    }

    /** @return a copy with these header commands */
    public SseServerConfig withHeaderCommands(HeaderCommands newHeaderCommands) {
        return new SseServerConfig(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, newHeaderCommands, toolPolicy, lazy);
    }

    /** @return a copy that is lazy as given (empty: started when the host loads) */
    @Override
    public SseServerConfig withLazy(Optional<LazyStart> newLazy) {
        return new SseServerConfig(url, headers, timeout, toolTimeout, enabled, auth, enabledTools, disabledTools, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, headerCommands, toolPolicy, newLazy);
    }
}
