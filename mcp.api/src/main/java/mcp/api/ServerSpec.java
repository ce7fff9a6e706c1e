package mcp.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
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
 * <p>A capability source writes one with {@link #builder(String, SourceMetadata)}, setting only what its
 * entry says; a filter that rewrites one starts from {@link #toBuilder()}.
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
 * @param sandbox the sandbox the entry asks a stdio server to run in, as written (see
 *     {@link StdioServerConfig#sandbox()}); absent: none asked for
 * @param headersHelper the command whose JSON output gives the entry's headers (Claude Code's {@code headersHelper};
 *     see {@link HeaderCommands#helper()}), if any
 * @param toolPolicy the per-tool decisions of the tool that owns the entry's file (see
 *     {@link ServerConfig#toolPolicy()})
 * @param lazy whether the entry asks to be started lazily, and with which idle timeout (see
 *     {@link ServerConfig#lazy()}); absent: started when the host loads
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
        AlwaysLoad alwaysLoad,
        Optional<Sandbox> sandbox,
        Optional<HeaderCommands.Helper> headersHelper,
        ToolPolicy toolPolicy,
        Optional<LazyStart> lazy) {

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
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(headersHelper, "headersHelper");
        Objects.requireNonNull(toolPolicy, "toolPolicy");
        Objects.requireNonNull(lazy, "lazy");
    }

    /** An entry that does not ask to be started lazily. */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools,
            Optional<Long> toolTimeoutMillis, Optional<List<String>> inheritedEnv, boolean expandVariables,
            Optional<OwnerState> owner, boolean valueReferences, Optional<String> protocolVersion,
            Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad,
            Optional<Sandbox> sandbox, Optional<HeaderCommands.Helper> headersHelper, ToolPolicy toolPolicy) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables, owner, valueReferences,
                protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, headersHelper, toolPolicy,
                Optional.empty());
    }

    /**
     * An entry without a headers helper and without per-tool decisions of an owning tool. (Only this one
     * 25-argument form: one that took the headers helper instead would have the same erasure; give a headers
     * helper or per-tool decisions through the canonical constructor or the
     * {@linkplain #builder(String, SourceMetadata) builder}.)
     */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools,
            Optional<Long> toolTimeoutMillis, Optional<List<String>> inheritedEnv, boolean expandVariables,
            Optional<OwnerState> owner, boolean valueReferences, Optional<String> protocolVersion,
            Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad,
            Optional<Sandbox> sandbox) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables, owner, valueReferences,
                protocolVersion, reconnect, callLimits, alwaysLoad, sandbox, Optional.empty(), ToolPolicy.NONE);
    }

    /** An entry that asks for no sandbox, has no headers helper and no per-tool decisions of an owning tool. */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools,
            Optional<Long> toolTimeoutMillis, Optional<List<String>> inheritedEnv, boolean expandVariables,
            Optional<OwnerState> owner, boolean valueReferences, Optional<String> protocolVersion,
            Optional<ReconnectPolicy> reconnect, CallLimits callLimits, AlwaysLoad alwaysLoad) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables, owner, valueReferences,
                protocolVersion, reconnect, callLimits, alwaysLoad, Optional.empty(), Optional.empty(),
                ToolPolicy.NONE);
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

    /**
     * An entry with one timeout, the whole environment inherited, {@code ${VAR}} expanded, and its env and
     * header values passed as written ({@link #valueReferences()} {@code false}: mcp-host's own value syntax
     * runs a {@code !command}, so only mcp-host's own files turn it on, and they say so).
     * {@link #builder(String, SourceMetadata)} is the shorter way to write an entry.
     */
    public ServerSpec(String name, SourceMetadata source, String location, Optional<String> type,
            Optional<String> command, List<String> args, Map<String, String> env, Optional<String> cwd,
            Optional<String> url, Map<String, String> headers, Optional<Long> timeoutMillis, Optional<Boolean> enabled,
            Optional<ServerConfig.AuthRef> auth, Optional<List<String>> enabledTools, List<String> disabledTools) {
        this(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis, enabled, auth,
                enabledTools, disabledTools, Optional.empty(), Optional.empty(), true, Optional.empty(), false);
    }

    /**
     * Starts an entry with every component but these two at its default (listed at {@link Builder}).
     *
     * @param name the server's name as written (checked by discovery, not here, so that a bad name is a
     *     problem of the entry rather than a failure of the source)
     * @param source where the entry came from
     * @return a builder
     * @throws NullPointerException if either is null
     */
    public static Builder builder(String name, SourceMetadata source) {
        return new Builder(name, source);
    }

    /** @return a builder that starts with every component of this entry */
    public Builder toBuilder() {
        Builder b = new Builder(name, source);
        b.location = location;
        b.type = type;
        b.command = command;
        b.args = args;
        b.env.putAll(env);
        b.cwd = cwd;
        b.url = url;
        b.headers.putAll(headers);
        b.timeoutMillis = timeoutMillis;
        b.enabled = enabled;
        b.auth = auth;
        b.enabledTools = enabledTools;
        b.disabledTools = disabledTools;
        b.toolTimeoutMillis = toolTimeoutMillis;
        b.inheritedEnv = inheritedEnv;
        b.expandVariables = expandVariables;
        b.owner = owner;
        b.valueReferences = valueReferences;
        b.protocolVersion = protocolVersion;
        b.reconnect = reconnect;
        b.callLimits = callLimits;
        b.alwaysLoad = alwaysLoad;
        b.sandbox = sandbox;
        b.headersHelper = headersHelper;
        b.toolPolicy = toolPolicy;
        b.lazy = lazy;
        return b;
    }

    /** @return a copy with this owner's decision */
    public ServerSpec withOwner(OwnerState newOwner) {
        return new ServerSpec(name, source, location, type, command, args, env, cwd, url, headers, timeoutMillis,
                enabled, auth, enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv, expandVariables,
                Optional.of(newOwner), valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad, sandbox,
                headersHelper, toolPolicy, lazy);
    }

    @Override
    public String toString() {
        // Env and header values may be secrets: show names only; the URL's credentials are masked.
        return "ServerSpec[name=" + name + ", source=" + source.providerId() + ", type=" + type.orElse("")
                + ", command=" + command.orElse("") + ", url=" + url.map(Secrets::maskUrl).orElse("") + ", env=" + env.keySet()
                + ", headers=" + headers.keySet() + "]";
    }

    /**
     * Writes a {@link ServerSpec} one component at a time. A source sets what its entry says and leaves the
     * rest; discovery then applies mcp-host's defaults and its validation, whose messages name the file and
     * the entry. So the builder rejects only what is a mistake in the source's code (a null, a location
     * that is no JSON pointer) and takes any value a file may hold (an unknown type, a negative timeout, a
     * blank command), which discovery reports as a problem of that entry.
     *
     * <p>Defaults:
     * <ul>
     *   <li>{@code location}: {@code ""} (unknown);</li>
     *   <li>{@code type}, {@code command}, {@code cwd}, {@code url}, {@code timeoutMillis}, {@code enabled},
     *       {@code auth}, {@code enabledTools}, {@code toolTimeoutMillis}, {@code inheritedEnv},
     *       {@code owner}, {@code protocolVersion}, {@code reconnect}: absent, which discovery reads as
     *       the type implied by {@code command} or {@code url}, a 30 s timeout for connecting and for tool
     *       calls, enabled, no stored credential, every tool exposed, the whole host environment
     *       inherited, no owning tool's decision, protocol version {@code auto} and the manager's
     *       reconnect policy;</li>
     *   <li>{@code args}, {@code env}, {@code headers}, {@code disabledTools}: empty;</li>
     *   <li>{@code expandVariables}: {@code true} ({@code ${VAR}} in values is expanded from the
     *       environment, as in the common {@code mcp.json} shape);</li>
     *   <li>{@code valueReferences}: {@code false} (env and header values are passed as written; mcp-host's
     *       own value syntax is for mcp-host's own files);</li>
     *   <li>{@code callLimits}: {@link CallLimits#NONE}; {@code alwaysLoad}: {@link AlwaysLoad#NONE};</li>
     *   <li>{@code sandbox}: absent (no sandbox asked for);</li>
     *   <li>{@code headersHelper}: absent;</li>
     *   <li>{@code toolPolicy}: {@link ToolPolicy#NONE};</li>
     *   <li>{@code lazy}: absent (started when the host loads).</li>
     * </ul>
     *
     * <p>Every setter replaces the component's value; {@link #putEnv(String, String)} and
     * {@link #putHeader(String, String)} add one entry. A setter that takes an {@link Optional} sets the
     * value as read, present or not, so a source can pass what it parsed without a branch. A builder is
     * not thread-safe; {@link #build()} may be called more than once.
     */
    public static final class Builder {
        private String name;
        private SourceMetadata source;
        private String location = "";
        private Optional<String> type = Optional.empty();
        private Optional<String> command = Optional.empty();
        private List<String> args = List.of();
        private final Map<String, String> env = new LinkedHashMap<>();
        private Optional<String> cwd = Optional.empty();
        private Optional<String> url = Optional.empty();
        private final Map<String, String> headers = new LinkedHashMap<>();
        private Optional<Long> timeoutMillis = Optional.empty();
        private Optional<Boolean> enabled = Optional.empty();
        private Optional<ServerConfig.AuthRef> auth = Optional.empty();
        private Optional<List<String>> enabledTools = Optional.empty();
        private List<String> disabledTools = List.of();
        private Optional<Long> toolTimeoutMillis = Optional.empty();
        private Optional<List<String>> inheritedEnv = Optional.empty();
        private boolean expandVariables = true;
        private Optional<OwnerState> owner = Optional.empty();
        private boolean valueReferences = false;
        private Optional<String> protocolVersion = Optional.empty();
        private Optional<ReconnectPolicy> reconnect = Optional.empty();
        private CallLimits callLimits = CallLimits.NONE;
        private AlwaysLoad alwaysLoad = AlwaysLoad.NONE;
        private Optional<Sandbox> sandbox = Optional.empty();
        private Optional<HeaderCommands.Helper> headersHelper = Optional.empty();
        private ToolPolicy toolPolicy = ToolPolicy.NONE;
        private Optional<LazyStart> lazy = Optional.empty();

        private Builder(String name, SourceMetadata source) {
            this.name = Objects.requireNonNull(name, "name");
            this.source = Objects.requireNonNull(source, "source");
        }

        /**
         * @param newName the server's name as written
         * @return this builder
         */
        public Builder name(String newName) {
            this.name = Objects.requireNonNull(newName, "name");
            return this;
        }

        /**
         * @param newSource where the entry came from
         * @return this builder
         */
        public Builder source(SourceMetadata newSource) {
            this.source = nonNull(newSource, "source");
            return this;
        }

        /**
         * @param pointer where in its file the entry is, as a JSON pointer (RFC 6901) such as
         *     {@code /mcpServers/git} ({@code ~} and {@code /} in a key escaped as {@code ~0} and
         *     {@code ~1}), or {@code ""} when unknown; default {@code ""}
         * @return this builder
         * @throws IllegalArgumentException if it is neither {@code ""} nor starts with {@code /}
         */
        public Builder location(String pointer) {
            nonNull(pointer, "location");
            if (!pointer.isEmpty() && !pointer.startsWith("/")) {
                throw new IllegalArgumentException(prefix() + "location must be a JSON pointer such as "
                        + "\"/mcpServers/git\", or \"\" when unknown; got \"" + pointer + "\"");
            }
            this.location = pointer;
            return this;
        }

        /**
         * @param declared the transport kind as written ({@code stdio}, {@code http}, {@code sse}); default
         *     absent (discovery infers it from {@code command} or {@code url})
         * @return this builder
         */
        public Builder type(String declared) {
            return type(Optional.of(nonNull(declared, "type")));
        }

        /**
         * @param declared the transport kind as read, if any
         * @return this builder
         */
        public Builder type(Optional<String> declared) {
            this.type = nonNull(declared, "type");
            return this;
        }

        /**
         * @param executable the stdio command; default absent
         * @return this builder
         */
        public Builder command(String executable) {
            return command(Optional.of(nonNull(executable, "command")));
        }

        /**
         * @param executable the stdio command as read, if any
         * @return this builder
         */
        public Builder command(Optional<String> executable) {
            this.command = nonNull(executable, "command");
            return this;
        }

        /**
         * @param arguments the stdio arguments, in order (copied); default none
         * @return this builder
         */
        public Builder args(List<String> arguments) {
            this.args = copy(arguments, "args");
            return this;
        }

        /**
         * @param arguments the stdio arguments, in order; default none
         * @return this builder
         */
        public Builder args(String... arguments) {
            return args(Arrays.asList(nonNull(arguments, "args")));
        }

        /**
         * @param variables the stdio environment entries (copied), replacing those set so far; default none
         * @return this builder
         */
        public Builder env(Map<String, String> variables) {
            Map<String, String> copy = copy(variables, "env");
            env.clear();
            env.putAll(copy);
            return this;
        }

        /**
         * @param variable an environment variable's name
         * @param value its value as written
         * @return this builder, with that entry added (or replaced)
         */
        public Builder putEnv(String variable, String value) {
            env.put(nonNull(variable, "env key"), nonNull(value, "env value of \"" + variable + "\""));
            return this;
        }

        /**
         * @param directory the stdio working directory; default absent (the host's working directory)
         * @return this builder
         */
        public Builder cwd(String directory) {
            return cwd(Optional.of(nonNull(directory, "cwd")));
        }

        /**
         * @param directory the stdio working directory as read, if any
         * @return this builder
         */
        public Builder cwd(Optional<String> directory) {
            this.cwd = nonNull(directory, "cwd");
            return this;
        }

        /**
         * @param endpoint the HTTP or SSE endpoint; default absent
         * @return this builder
         */
        public Builder url(String endpoint) {
            return url(Optional.of(nonNull(endpoint, "url")));
        }

        /**
         * @param endpoint the HTTP or SSE endpoint as read, if any
         * @return this builder
         */
        public Builder url(Optional<String> endpoint) {
            this.url = nonNull(endpoint, "url");
            return this;
        }

        /**
         * @param values the HTTP headers (copied), replacing those set so far; default none
         * @return this builder
         */
        public Builder headers(Map<String, String> values) {
            Map<String, String> copy = copy(values, "headers");
            headers.clear();
            headers.putAll(copy);
            return this;
        }

        /**
         * @param header a header's name
         * @param value its value as written
         * @return this builder, with that header added (or replaced)
         */
        public Builder putHeader(String header, String value) {
            headers.put(nonNull(header, "headers key"), nonNull(value, "headers value of \"" + header + "\""));
            return this;
        }

        /**
         * @param millis the timeout of connecting and of requests, in milliseconds, as written (discovery
         *     rejects a value that is not positive); default absent (30 s)
         * @return this builder
         */
        public Builder timeoutMillis(long millis) {
            this.timeoutMillis = Optional.of(millis);
            return this;
        }

        /**
         * @param millis the timeout in milliseconds as read, if any
         * @return this builder
         */
        public Builder timeoutMillis(Optional<Long> millis) {
            this.timeoutMillis = nonNull(millis, "timeoutMillis");
            return this;
        }

        /**
         * @param on whether the entry is enabled ({@code false}: listed as disabled, never started);
         *     default absent (enabled)
         * @return this builder
         */
        public Builder enabled(boolean on) {
            this.enabled = Optional.of(on);
            return this;
        }

        /**
         * @param on whether the entry is enabled, as read, if set
         * @return this builder
         */
        public Builder enabled(Optional<Boolean> on) {
            this.enabled = nonNull(on, "enabled");
            return this;
        }

        /**
         * @param reference the stored credential to use; default absent
         * @return this builder
         */
        public Builder auth(ServerConfig.AuthRef reference) {
            return auth(Optional.of(nonNull(reference, "auth")));
        }

        /**
         * @param reference the stored credential as read, if any
         * @return this builder
         */
        public Builder auth(Optional<ServerConfig.AuthRef> reference) {
            this.auth = nonNull(reference, "auth");
            return this;
        }

        /**
         * @param tools the only tools to expose (copied; an empty list exposes none); default absent (all)
         * @return this builder
         */
        public Builder enabledTools(List<String> tools) {
            return enabledTools(Optional.of(copy(tools, "enabledTools")));
        }

        /**
         * @param tools the tool allow-list as read, if any
         * @return this builder
         */
        public Builder enabledTools(Optional<List<String>> tools) {
            this.enabledTools = nonNull(tools, "enabledTools").map(list -> copy(list, "enabledTools"));
            return this;
        }

        /**
         * @param tools tools never to expose (copied); default none
         * @return this builder
         */
        public Builder disabledTools(List<String> tools) {
            this.disabledTools = copy(tools, "disabledTools");
            return this;
        }

        /**
         * @param millis the tool-call timeout in milliseconds, as written (discovery rejects a value that is
         *     not positive); default absent (the {@code timeoutMillis})
         * @return this builder
         */
        public Builder toolTimeoutMillis(long millis) {
            this.toolTimeoutMillis = Optional.of(millis);
            return this;
        }

        /**
         * @param millis the tool-call timeout in milliseconds as read, if any
         * @return this builder
         */
        public Builder toolTimeoutMillis(Optional<Long> millis) {
            this.toolTimeoutMillis = nonNull(millis, "toolTimeoutMillis");
            return this;
        }

        /**
         * @param variables the only host environment variables a stdio server inherits (copied; see
         *     {@link StdioServerConfig#inheritedEnv()}); default absent (all of them)
         * @return this builder
         */
        public Builder inheritedEnv(List<String> variables) {
            return inheritedEnv(Optional.of(copy(variables, "inheritedEnv")));
        }

        /**
         * @param variables the inherited host variables as read, if limited
         * @return this builder
         */
        public Builder inheritedEnv(Optional<List<String>> variables) {
            this.inheritedEnv = nonNull(variables, "inheritedEnv").map(list -> copy(list, "inheritedEnv"));
            return this;
        }

        /**
         * @param expand whether discovery expands {@code ${VAR}} in the values; {@code false} for a format
         *     whose tool passes values as written; default {@code true}
         * @return this builder
         */
        public Builder expandVariables(boolean expand) {
            this.expandVariables = expand;
            return this;
        }

        /**
         * @param decision what the tool owning the file decided about the entry, when its start depends on
         *     such a decision; default absent (a user's own entry needs no one's consent)
         * @return this builder
         */
        public Builder owner(OwnerState decision) {
            return owner(Optional.of(nonNull(decision, "owner")));
        }

        /**
         * @param decision the owning tool's decision as read, if any
         * @return this builder
         */
        public Builder owner(Optional<OwnerState> decision) {
            this.owner = nonNull(decision, "owner");
            return this;
        }

        /**
         * @param allowed whether env and header values may use mcp-host's own value syntax (a
         *     {@code !command} is run, a bare variable name is resolved; see
         *     {@link ServerConfig#valueReferences()}); for mcp-host's own files only, so a plugin leaves it;
         *     default {@code false}
         * @return this builder
         */
        public Builder valueReferences(boolean allowed) {
            this.valueReferences = allowed;
            return this;
        }

        /**
         * @param version the protocol version the entry pins ({@code "auto"} or a version; discovery rejects
         *     any other); default absent ({@code auto})
         * @return this builder
         */
        public Builder protocolVersion(String version) {
            return protocolVersion(Optional.of(nonNull(version, "protocolVersion")));
        }

        /**
         * @param version the pinned protocol version as read, if any
         * @return this builder
         */
        public Builder protocolVersion(Optional<String> version) {
            this.protocolVersion = nonNull(version, "protocolVersion");
            return this;
        }

        /**
         * @param policy the entry's reconnect policy; default absent (the manager's)
         * @return this builder
         */
        public Builder reconnect(ReconnectPolicy policy) {
            return reconnect(Optional.of(nonNull(policy, "reconnect")));
        }

        /**
         * @param policy the entry's reconnect policy as read, if any
         * @return this builder
         */
        public Builder reconnect(Optional<ReconnectPolicy> policy) {
            this.reconnect = nonNull(policy, "reconnect");
            return this;
        }

        /**
         * @param limits the bounds of the entry's tool calls; default {@link CallLimits#NONE}
         * @return this builder
         */
        public Builder callLimits(CallLimits limits) {
            this.callLimits = nonNull(limits, "callLimits");
            return this;
        }

        /**
         * @param tools the entry's tools kept in the agent's tool set under deferred loading; default
         *     {@link AlwaysLoad#NONE}
         * @return this builder
         */
        public Builder alwaysLoad(AlwaysLoad tools) {
            this.alwaysLoad = nonNull(tools, "alwaysLoad");
            return this;
        }

        /**
         * @param rules the sandbox the entry asks a stdio server to run in; default absent
         * @return this builder
         */
        public Builder sandbox(Sandbox rules) {
            return sandbox(Optional.of(nonNull(rules, "sandbox")));
        }

        /**
         * @param rules the sandbox as read, if any
         * @return this builder
         */
        public Builder sandbox(Optional<Sandbox> rules) {
            this.sandbox = nonNull(rules, "sandbox");
            return this;
        }

        /**
         * @param helper the command whose JSON output gives the entry's headers, as read, if any; default absent
         * @return this builder
         */
        public Builder headersHelper(Optional<HeaderCommands.Helper> helper) {
            this.headersHelper = nonNull(helper, "headersHelper");
            return this;
        }

        /**
         * @param policy the per-tool decisions of the tool that owns the entry's file (its rules, in its
         *     precedence); default {@link ToolPolicy#NONE}
         * @return this builder
         */
        public Builder toolPolicy(ToolPolicy policy) {
            this.toolPolicy = nonNull(policy, "toolPolicy");
            return this;
        }

        /**
         * @param start whether the entry asks to be started lazily, as read; default absent
         * @return this builder
         */
        public Builder lazy(Optional<LazyStart> start) {
            this.lazy = nonNull(start, "lazy");
            return this;
        }

        /** @return the entry, equal to the one the canonical constructor makes of these components */
        public ServerSpec build() {
            return new ServerSpec(name, source, location, type, command, args, env, cwd, url, headers,
                    timeoutMillis, enabled, auth, enabledTools, disabledTools, toolTimeoutMillis, inheritedEnv,
                    expandVariables, owner, valueReferences, protocolVersion, reconnect, callLimits, alwaysLoad,
                    sandbox, headersHelper, toolPolicy, lazy);
        }

        private String prefix() {
            return "ServerSpec \"" + name + "\": ";
        }

        private <T> T nonNull(T value, String what) {
            return Objects.requireNonNull(value, () -> prefix() + what + " is null");
        }

        /** A copy that names the first null element, which {@link List#copyOf} would not. */
        private List<String> copy(List<String> values, String what) {
            nonNull(values, what);
            List<String> copy = new ArrayList<>(values.size());
            for (String value : values) {
                copy.add(nonNull(value, what + "[" + copy.size() + "]"));
            }
            return List.copyOf(copy);
        }

        /** A copy that names a null key or the key of a null value, never a value (it may be a secret). */
        private Map<String, String> copy(Map<String, String> values, String what) {
            nonNull(values, what);
            Map<String, String> copy = new LinkedHashMap<>();
            values.forEach((key, value) -> copy.put(nonNull(key, what + " key"),
                    nonNull(value, what + " value of \"" + key + "\"")));
            return copy;
        }
    }
}
