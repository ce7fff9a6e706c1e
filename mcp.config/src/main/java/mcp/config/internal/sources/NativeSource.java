package mcp.config.internal.sources;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import mcp.api.AlwaysLoad;
import mcp.api.CallLimits;
import mcp.api.ConsultedFile;
import mcp.api.LazyStart;
import mcp.api.ReconnectPolicy;
import mcp.api.ResultBudget;
import mcp.api.Sandbox;
import mcp.api.SourceMetadata;
import mcp.api.UserDirectories;
import tools.jackson.databind.JsonNode;

/**
 * mcp-host's own config files ({@code native}, priority 100): {@code mcp.json} in
 * {@code $XDG_CONFIG_HOME/mcp-host/} (when the variable holds an absolute path, as the XDG spec
 * requires; else {@code ~/.config/mcp-host/}), and {@code .mcp-host/mcp.json} in the project. The
 * servers sit under {@code mcpServers} in the common shape, so a Claude Desktop config can be
 * copied in as it is. Its env and header values may use mcp-host's own value syntax (a {@code !command},
 * the name of an environment variable; see {@link mcp.api.ServerConfig#valueReferences()}), and
 * {@code inheritEnv} says which of the host's variables a stdio server gets (default all), and {@code sandbox}
 * the sandbox a stdio server runs in (VS Code's shape; see {@code docs/sandbox.md}).
 */
public final class NativeSource extends FileSource {

    /** The one file to read instead of the standard ones, or {@code null}. */
    private final Path explicitFile;

    /** Creates the source; ServiceLoader calls this. */
    public NativeSource() {
        this(null);
    }

    private NativeSource(Path explicitFile) {
        super("native", "mcp-host", 100);
        this.explicitFile = explicitFile;
    }

    /**
     * @param file a config file in the native format
     * @return a source that reads only this file, at level {@link SourceMetadata.Level#NATIVE}; a
     *     missing file is a problem here, since someone named it
     */
    public static NativeSource forFile(Path file) {
        return new NativeSource(file.toAbsolutePath().normalize());
    }

    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        if (explicitFile == null) {
            super.collect(context, search, findings);
        } else if (!Files.exists(explicitFile, LinkOption.NOFOLLOW_LINKS) && !Files.exists(explicitFile)) {
            findings.problem(explicitFile, "", "", "the config file does not exist");
            findings.consulted(new ConsultedFile(explicitFile, ConsultedFile.State.MISSING));
        } else {
            readFile(new ConfigFile(explicitFile, SourceMetadata.Level.NATIVE, search.projectRoot(), format()), search,
                    findings);
        }
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        return List.of(UserDirectories.of(search.environment(), search.home()).config().resolve("mcp.json"));
    }

    @Override
    List<String> projectFiles() {
        return List.of(".mcp-host/mcp.json");
    }

    /**
     * The variables {@code "inheritEnv": "minimal"} passes on: a process's own basics, the ones Codex passes
     * to its servers, and their Windows counterparts.
     */
    static final List<String> MINIMAL_ENV = Stream.concat(CodexSource.DEFAULT_ENV_VARS.stream(), Stream.of("SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR",
            "TEMP", "TMP", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "SYSTEMDRIVE")).toList();

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        spec.valueReferences = true;
        inheritEnv(entry).ifPresent(names -> spec.inheritedEnv = Optional.of(names));
        // Checked by validation, which names the versions there are.
        spec.protocolVersion = entry.string("protocolVersion");
        spec.reconnect = reconnect(entry);
        spec.callLimits = callLimits(entry);
        spec.alwaysLoad = alwaysLoad(entry);
        spec.sandbox = sandbox(entry);
        spec.lazy = lazy(entry);
    }

    /**
     * {@code lazy}: {@code true} (not started at load; started by the first call of one of its cached tools, stopped
     * after the host's idle timeout), {@code false} (the default), or an object whose one field {@code idleTimeout}
     * (positive milliseconds) is how long it may be idle before it is stopped. The idle timeout sits inside
     * {@code lazy} because the entry's own {@code idleTimeout} is a tool call's idle bound.
     *
     * @return what the entry sets; a wrong value is a problem of the entry
     */
    static Optional<LazyStart> lazy(ServerEntry entry) {
        JsonNode value = entry.value("lazy");
        if (value == null || value.isBoolean() && !value.booleanValue()) {
            return Optional.empty();
        }
        if (value.isBoolean()) {
            return Optional.of(LazyStart.DEFAULT);
        }
        String pointer = Pointers.child(entry.pointer(), "lazy");
        if (!value.isObject()) {
            entry.error(pointer, "\"lazy\" must be true, false or an object with idleTimeout (ms), got "
                    + ServerEntry.describe(value, Format.JSON));
            return Optional.empty();
        }
        for (Map.Entry<String, JsonNode> field : value.properties()) {
            if (!field.getKey().equals("idleTimeout")) {
                entry.error(Pointers.child(pointer, field.getKey()), "\"lazy\" has no field \"" + field.getKey()
                        + "\" (idleTimeout)");
                return Optional.empty();
            }
        }
        JsonNode idle = value.get("idleTimeout");
        if (idle == null || idle.isNull()) {
            return Optional.of(LazyStart.DEFAULT);
        }
        if (!idle.isIntegralNumber() || !idle.canConvertToLong() || idle.longValue() <= 0) {
            entry.error(Pointers.child(pointer, "idleTimeout"), "\"lazy\".\"idleTimeout\" must be a positive "
                    + "number of milliseconds, got " + ServerEntry.describe(idle, Format.JSON));
            return Optional.empty();
        }
        return Optional.of(LazyStart.idle(Duration.ofMillis(idle.longValue())));
    }

    /**
     * {@code sandbox}: {@code true} (a sandbox with no rule of its own: nothing writable, no network),
     * {@code false} (none, the default), or VS Code's {@code sandbox} object ({@link SandboxShape}), whose unknown
     * keys are problems here: a misspelt rule must not pass for one.
     *
     * @return the sandbox the entry asks for; a wrong value is a problem of the entry
     */
    static Optional<Sandbox> sandbox(ServerEntry entry) {
        JsonNode value = entry.value("sandbox");
        if (value == null || value.isBoolean() && !value.booleanValue()) {
            return Optional.empty();
        }
        if (value.isBoolean()) {
            return Optional.of(Sandbox.DEFAULT);
        }
        if (!value.isObject()) {
            entry.error(Pointers.child(entry.pointer(), "sandbox"), "\"sandbox\" must be true, false or an object of"
                    + " filesystem and network rules, got " + ServerEntry.describe(value, Format.JSON));
            return Optional.empty();
        }
        return entry.nested("sandbox").flatMap(rules -> SandboxShape.read(rules, true));
    }

    /**
     * {@code alwaysLoad}: {@code true} (every tool of the server stays in the agent's tool set under deferred
     * loading), {@code false} (the default: none by this setting), or an array of tool names as the server gives
     * them. A name the server does not offer is no problem: that tool is simply not there.
     *
     * @return what the entry sets; a wrong value is a problem of the entry
     */
    static AlwaysLoad alwaysLoad(ServerEntry entry) {
        JsonNode value = entry.value("alwaysLoad");
        if (value == null) {
            return AlwaysLoad.NONE;
        }
        if (value.isBoolean()) {
            return value.booleanValue() ? AlwaysLoad.ALL : AlwaysLoad.NONE;
        }
        String pointer = Pointers.child(entry.pointer(), "alwaysLoad");
        if (!value.isArray()) {
            entry.error(pointer, "\"alwaysLoad\" must be true, false or an array of tool names, got "
                    + ServerEntry.describe(value, Format.JSON));
            return AlwaysLoad.NONE;
        }
        List<String> names = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (!item.isString() || item.stringValue().isBlank()) {
                entry.error(Pointers.child(pointer, i), "\"alwaysLoad\" must be an array of tool names, got "
                        + (item.isString() ? "an empty name" : ServerEntry.describe(item, Format.JSON)) + " at index " + i);
                return AlwaysLoad.NONE;
            }
            names.add(item.stringValue());
        }
        return AlwaysLoad.tools(names);
    }

    /**
     * {@code idleTimeout} and {@code maxTotalTimeout} (positive milliseconds) and {@code resetTimeoutOnProgress}
     * (a boolean): the bounds of the server's tool calls beside {@code toolTimeout}; {@code resultBudget}: how much
     * of a call's result reaches the agent ({@link #resultBudget}).
     *
     * @return what the entry sets; a wrong value is a problem of the entry
     */
    static CallLimits callLimits(ServerEntry entry) {
        Optional<Duration> idle = positiveMillis(entry, "idleTimeout");
        Optional<Duration> cap = positiveMillis(entry, "maxTotalTimeout");
        Optional<Boolean> reset = entry.bool("resetTimeoutOnProgress");
        ResultBudget budget = resultBudget(entry);
        return entry.failed() ? CallLimits.NONE : new CallLimits(idle, cap, reset, budget);
    }

    private static final List<String> BUDGET_FIELDS = List.of("maxChars", "maxTokens", "warnTokens");

    /**
     * {@code resultBudget}: an object of {@code maxChars}, {@code maxTokens}, {@code warnTokens} (positive whole
     * numbers) and {@code tools}, an object of the same three by tool name (the tool's name on the server).
     *
     * @return what the entry sets; a wrong value is a problem of the entry
     */
    static ResultBudget resultBudget(ServerEntry entry) {
        JsonNode value = entry.value("resultBudget");
        if (value == null) {
            return ResultBudget.NONE;
        }
        String pointer = Pointers.child(entry.pointer(), "resultBudget");
        Optional<ResultBudget> own = budgetBounds(entry, value, pointer, "\"resultBudget\"", true);
        if (own.isEmpty()) {
            return ResultBudget.NONE;
        }
        JsonNode tools = value.get("tools");
        if (tools == null) {
            return own.get();
        }
        if (!tools.isObject()) {
            entry.error(Pointers.child(pointer, "tools"), "\"resultBudget\".\"tools\" must be an object of tool names, got "
                    + ServerEntry.describe(tools, Format.JSON));
            return ResultBudget.NONE;
        }
        Map<String, ResultBudget> perTool = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> tool : tools.properties()) {
            Optional<ResultBudget> bounds = budgetBounds(entry, tool.getValue(),
                    Pointers.child(Pointers.child(pointer, "tools"), tool.getKey()),
                    "\"resultBudget\".\"tools\".\"" + tool.getKey() + "\"", false);
            if (bounds.isEmpty()) {
                return ResultBudget.NONE;
            }
            perTool.put(tool.getKey(), bounds.get());
        }
        ResultBudget base = own.get();
        return new ResultBudget(base.maxChars(), base.maxTokens(), base.warnTokens(), perTool);
    }

    /** @return the three bounds of one object, or empty after reporting what is wrong with it */
    private static Optional<ResultBudget> budgetBounds(ServerEntry entry, JsonNode value, String pointer, String what,
            boolean toolsAllowed) {
        String fields = "maxChars, maxTokens, warnTokens" + (toolsAllowed ? ", tools" : "");
        if (!value.isObject()) {
            entry.error(pointer, what + " must be an object of " + fields + ", got "
                    + ServerEntry.describe(value, Format.JSON));
            return Optional.empty();
        }
        Integer[] bounds = new Integer[BUDGET_FIELDS.size()];
        for (Map.Entry<String, JsonNode> field : value.properties()) {
            int index = BUDGET_FIELDS.indexOf(field.getKey());
            if (index < 0) {
                if (!(toolsAllowed && field.getKey().equals("tools"))) {
                    entry.error(Pointers.child(pointer, field.getKey()), what + " has no field \"" + field.getKey()
                            + "\" (" + fields + ")");
                    return Optional.empty();
                }
                continue;
            }
            JsonNode number = field.getValue();
            if (!number.isIntegralNumber() || !number.canConvertToInt() || number.intValue() <= 0) {
                entry.error(Pointers.child(pointer, field.getKey()), what + ".\"" + field.getKey()
                        + "\" must be a positive whole number, got " + (number.isNumber() ? number.toString()
                        : ServerEntry.describe(number, Format.JSON)));
                return Optional.empty();
            }
            bounds[index] = number.intValue();
        }
        return Optional.of(ResultBudget.of(bounds[0], bounds[1], bounds[2]));
    }

    private static Optional<Duration> positiveMillis(ServerEntry entry, String key) {
        Optional<Long> millis = entry.millis(key);
        if (millis.isPresent() && millis.get() <= 0) {
            entry.error(Pointers.child(entry.pointer(), key), "\"" + key + "\" must be a positive number of "
                    + "milliseconds, got " + millis.get());
            return Optional.empty();
        }
        return millis.map(Duration::ofMillis);
    }

    /**
     * {@code reconnect}: {@code "off"} or {@code false} (never: neither after a drop nor after a failed first
     * connect), {@code "on"} or {@code true} (the default policy, {@link ReconnectPolicy#DEFAULT}), or an object of
     * {@code attempts}, {@code initialDelay}, {@code maxDelay}, {@code crashWindow} (milliseconds), {@code jitter} (a
     * fraction, 0 to 1) and {@code startupRetries} (the retries of a first connect that failed for a passing reason),
     * each defaulting to the default policy's.
     *
     * @return the policy, or empty when absent (the manager's default) or wrong (a problem of the entry)
     */
    static Optional<ReconnectPolicy> reconnect(ServerEntry entry) {
        JsonNode value = entry.value("reconnect");
        if (value == null) {
            return Optional.empty();
        }
        String expected = "\"reconnect\" must be \"on\", \"off\", true, false or an object of attempts, initialDelay, "
                + "maxDelay, crashWindow (ms), jitter (0 to 1) and startupRetries, got ";
        if (value.isBoolean() || value.isString() && (value.stringValue().equals("on") || value.stringValue().equals("off"))) {
            boolean on = value.isBoolean() ? value.booleanValue() : value.stringValue().equals("on");
            return Optional.of(on ? ReconnectPolicy.DEFAULT : ReconnectPolicy.OFF);
        }
        if (!value.isObject()) {
            entry.error(Pointers.child(entry.pointer(), "reconnect"), expected + ServerEntry.describe(value, Format.JSON));
            return Optional.empty();
        }
        Optional<ServerEntry> nested = entry.nested("reconnect");
        if (nested.isEmpty()) {
            return Optional.empty();
        }
        ServerEntry fields = nested.get();
        for (Map.Entry<String, JsonNode> field : value.properties()) {
            if (!List.of("attempts", "initialDelay", "maxDelay", "crashWindow", "jitter", "startupRetries")
                    .contains(field.getKey())) {
                entry.error(Pointers.child(Pointers.child(entry.pointer(), "reconnect"), field.getKey()),
                        "\"reconnect\" has no field \"" + field.getKey() + "\" (attempts, initialDelay, maxDelay, "
                                + "crashWindow, jitter, startupRetries)");
                return Optional.empty();
            }
        }
        ReconnectPolicy d = ReconnectPolicy.DEFAULT;
        for (String whole : List.of("attempts", "startupRetries")) {
            JsonNode node = value.get(whole);
            if (node != null && !(node.isIntegralNumber() && node.canConvertToInt())) {
                entry.error(Pointers.child(Pointers.child(entry.pointer(), "reconnect"), whole),
                        "\"reconnect\".\"" + whole + "\" must be a whole number, got " + ServerEntry.describe(node,
                                Format.JSON));
                return Optional.empty();
            }
        }
        JsonNode attemptsNode = value.get("attempts");
        long attempts = attemptsNode == null ? d.attempts() : attemptsNode.intValue();
        JsonNode retriesNode = value.get("startupRetries");
        long retries = retriesNode == null ? d.startupRetries() : retriesNode.intValue();
        long initial = fields.millis("initialDelay").orElse(d.initialDelay().toMillis());
        long max = fields.millis("maxDelay").orElse(Math.max(initial, d.maxDelay().toMillis()));
        long window = fields.millis("crashWindow").orElse(d.crashWindow().toMillis());
        JsonNode jitterNode = value.get("jitter");
        if (jitterNode != null && !jitterNode.isNumber()) {
            entry.error(Pointers.child(Pointers.child(entry.pointer(), "reconnect"), "jitter"),
                    "\"reconnect\".\"jitter\" must be a number from 0 to 1, got " + ServerEntry.describe(jitterNode,
                            Format.JSON));
            return Optional.empty();
        }
        if (entry.failed()) {
            return Optional.empty();
        }
        double jitter = jitterNode == null ? d.jitter() : jitterNode.doubleValue();
        try {
            if (attempts > 1_000) {
                throw new IllegalArgumentException("reconnect attempts must be at most 1000, got " + attempts);
            }
            if (retries > 100) {
                // Each retry may take the server's connect timeout: a start held for hours helps nobody.
                throw new IllegalArgumentException("startup retries must be at most 100, got " + retries);
            }
            return Optional.of(new ReconnectPolicy((int) attempts, Duration.ofMillis(initial), Duration.ofMillis(max),
                    jitter, Duration.ofMillis(window), (int) retries));
        } catch (IllegalArgumentException e) {
            entry.error(Pointers.child(entry.pointer(), "reconnect"), "\"reconnect\": " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * {@code inheritEnv}: {@code "all"} (the default: the whole environment), {@code "minimal"}
     * ({@link #MINIMAL_ENV}), or an array of names: the minimal set plus those.
     *
     * @return the names a stdio server inherits, or empty for the whole environment
     */
    private static Optional<List<String>> inheritEnv(ServerEntry entry) {
        JsonNode value = entry.value("inheritEnv");
        if (value == null || value.isString() && value.stringValue().equals("all")) {
            return Optional.empty();
        }
        if (value.isString() && value.stringValue().equals("minimal")) {
            return Optional.of(MINIMAL_ENV);
        }
        Optional<List<String>> names = value.isArray() ? entry.stringList("inheritEnv", false) : Optional.empty();
        if (names.isEmpty()) {
            if (!entry.failed()) {
                entry.error(Pointers.child(entry.pointer(), "inheritEnv"), "\"inheritEnv\" must be \"all\", \"minimal\""
                        + " or an array of variable names, got " + ServerEntry.describe(value, Format.JSON));
            }
            return Optional.empty();
        }
        List<String> inherited = new ArrayList<>(MINIMAL_ENV);
        names.get().stream().filter(name -> !inherited.contains(name)).forEach(inherited::add);
        return Optional.of(inherited);
    }
}
