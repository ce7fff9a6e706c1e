package mcp.testkit.internal;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The command-line options of {@code mcp.testkit.TestServer}, parsed once at startup.
 *
 * <p>Parsing is strict on purpose: a typo in a test's server arguments should fail loudly
 * (exit 2) instead of silently running a server without the intended fault.
 */
public final class Options {

    /** Faults that a test can switch on with {@code --fault NAME}; the CLI name is the lower-case, dashed form. */
    public enum Fault {
        EXIT_AT_START, EXIT_DURING_CALL, GARBAGE_STDOUT, NO_INITIALIZE, OVERSIZED, SERVER_REQUESTS, GRANDCHILD, REPEAT_CURSOR,
        HOSTILE_TEXT, SILENT_DISCOVER, EXIT_BEFORE_INITIALIZE, ENDLESS_INPUT, FLOOD, TICKER, LISTEN_TOOLS_ONLY,
        SKILL_DIGEST, SKILL_SIZE, SKILL_FRONTMATTER,
        /** {@code resources/list} answers an internal error (the other lists work). */
        SURFACE_LISTS_FAIL;

        /** The name used on the command line, e.g. {@code exit-at-start}. */
        public String cliName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** Usage text printed on stderr when the arguments are wrong. */
    public static final String USAGE = String.join("\n",
            "usage: TestServer [options]",
            "  --tools N               generated tools tool_0..tool_{N-1} (default 0)",
            "  --page-size N           tools/list page size (default 100)",
            "  --latency-ms N          sleep before answering every request (default 0)",
            "  --init-delay-ms N       extra sleep before answering initialize (default 0)",
            "  --protocol-version V    answer initialize with V whatever the client asked",
            "  --stderr TEXT           print TEXT on stderr at startup",
            "  --name NAME             serverInfo.name (default mcp-testkit)",
            "  --era E                 adds the tools ask and received; E is legacy (the default era: the 2025",
            "                          handshake only, server/discover is an unknown method),",
            "                          modern (2026-07-28 only: per-request _meta, server/discover, resultType,",
            "                          multi round-trip requests, subscriptions/listen; initialize is answered",
            "                          UnsupportedProtocolVersionError -32022), or dual (both; the first",
            "                          request fixes the era of the process, as the Python SDK does)",
            "  --list-ttl-ms N         modern era: the ttlMs of every tools/list page (default 0)",
            "  --list-scope S          modern era: the cacheScope of every tools/list page, public or private",
            "                          (default public)",
            "  --tools-file FILE       JSON {\"instructions\": TEXT, \"tools\": [TOOL...]}, read at every initialize and",
            "                          tools/list: its tools replace built-ins of the same name or come last; adds the",
            "                          tool reread_tools, which sends notifications/tools/list_changed",
            "  --fault F               repeatable; F is one of: exit-at-start, exit-during-call,",
            "                          garbage-stdout, no-initialize, oversized, server-requests, grandchild,",
            "                          repeat-cursor (tools/list always answers page one with cursor \"0\"),",
            "                          hostile-text (tools whose titles and descriptions hold terminal escapes,",
            "                          invisible characters and 100 KB of text), silent-discover (server/discover is",
            "                          never answered), exit-before-initialize (a first request other than",
            "                          initialize makes the server exit, as some legacy servers do), endless-input (the",
            "                          modern ask asks for input again in every round), flood (adds the tool flood:",
            "                          {kind, count} sends count messages of a kind before it answers: progress (for",
            "                          the call's token), junk (stdout lines that are not JSON-RPC), stray-errors",
            "                          (error responses to ids never sent), notifications (of a method nobody",
            "                          handles), huge-token (progress with tokens of every size and type),",
            "                          requests (pings mcp-host must answer)), ticker (adds the tool ticker:",
            "                          {intervalMs, ticks} sends progress every intervalMs, forever or ticks times",
            "                          and then nothing: it never answers, until cancelled), listen-tools-only (modern",
            "                          era: a subscriptions/listen asking for anything but toolsListChanged is",
            "                          refused with -32602, as a server that knows no other field would),",
            "                          surface-lists-fail (with --features resources: resources/list answers an",
            "                          internal error), skill-digest, skill-size, skill-frontmatter (with --features",
            "                          skills: files served other than their entries say, see SkillsFixture)",
            "  --tasks POLL_MS         modern era: offers the tasks extension (io.modelcontextprotocol/tasks) in",
            "                          server/discover; a tools/call that declares it becomes a task (all tools but",
            "                          received, cancellations, task_states and pid) with pollIntervalMs POLL_MS: slow and",
            "                          ticker report their steps as its statusMessage, error makes it failed, ask makes",
            "                          it input_required (answered with tasks/update), tasks/cancel cancels it; the tool",
            "                          task_states returns {taskId: status} of every task",
            "  --features LIST         comma-separated, of prompts (greet {name, style} and hello), resources",
            "                          [trace-context: the tool trace_context returns each request's method with the",
            "                          traceparent, tracestate and baggage of its params._meta, in order]",
            "                          [large-results: the tools big_text {bytes, hint, error} (bytes characters of",
            "                          numbered lines; hint: the result's _meta anthropic/maxResultSizeChars;",
            "                          error: as a tool error), hinted_text {bytes} (its definition's _meta asks for",
            "                          200000 characters) and big_image {bytes, width, height} (a PNG image item of",
            "                          that many bytes; with width and height, its IHDR says that size)]",
            "                          (test://text/readme, the binary test://blob/data, the template",
            "                          test://items/{id}) and completions (style and name of greet, id of the",
            "                          template); each is declared as a capability; the lists page by --page-size",
            "                          and repeat-cursor loops them too (default none); subscriptions (needs",
            "                          resources: declares resources.subscribe, serves resources/subscribe and",
            "                          unsubscribe or listen resourceSubscriptions, adds the tools touch_resource",
            "                          {uri} (the resource changes, updated is sent to its subscribers, answers",
            "                          \"notified N\") and listens (the open listen filters, or the 2025 subscribed",
            "                          URIs, as JSON)); list-changes (declares listChanged for prompts and resources,",
            "                          adds the tools change_prompts and change_resources, which send their",
            "                          list_changed: plainly in 2025, on the listen streams that asked in 2026); skills",
            "                          (the extension io.modelcontextprotocol/skills: skills/list, skills/get and",
            "                          resources/read of three skills, see SkillsFixture; declares resources too);",
            "                          logging (declared; the tool log {level, message, logger} sends",
            "                          notifications/message when level is at or above the one asked: logging/setLevel",
            "                          in the 2025 era (default warning), the request's _meta",
            "                          io.modelcontextprotocol/logLevel in 2026-07-28 (none there: no message));",
            "                          sandbox-probes (the tools write_file {path, text}, read_file {path} and",
            "                          connect {host, port}: each tries what a sandbox may forbid and answers what",
            "                          happened, as a tool error when refused, with the system's message)",
            "  --blob-bytes N          the size of test://blob/data in bytes (default 1024)",
            "  --log-every MS          with --features logging: notifications/message \"tick N\" (info) every MS,",
            "                          outside any request: at the level logging/setLevel asked (2025 era), on each",
            "                          subscriptions/listen stream whose _meta asked a level (2026-07-28)",
            "  --exit-marker FILE      on stdin EOF, write \"stdin-eof\" to FILE, then exit 0 as usual: proof of a",
            "                          graceful close, not a signal",
            "  --cancel-log FILE       append the requestId of every notifications/cancelled to FILE, one a line:",
            "                          what a client cancelled, readable after the server is gone",
            "  --call-log FILE         append \"<tool> <arguments>\" to FILE for every tools/call, before it runs:",
            "                          how often each call was executed, across every process given that FILE",
            "  --fail-first N          the first N starts fail (see --fail-with), counted in the --state file, which",
            "                          this option needs; later starts serve as usual: a server whose first connects",
            "                          meet a passing failure",
            "  --state FILE            one line per start, the pid; a start that finds an earlier start's process",
            "                          still alive adds a line \"overlap PID\" (two at once); --fail-first counts them",
            "  --fail-with HOW         how a failing start fails: exit (the default: exit code 4 at once, with a",
            "                          line on stderr) or hang (never answers anything; exits 0 when stdin ends)",
            "  --tool-ui NAME[=AUD]    repeatable; the tool NAME (built-in or generated) gets the MCP Apps _meta.ui",
            "                          {resourceUri: ui://mcp-testkit/NAME, visibility: [AUD...]}: AUD is a",
            "                          comma-separated list of model and app, empty for visibility []; without",
            "                          =AUD the ui object has no visibility (the extension's default: both)");

    public int tools = 0;
    public int pageSize = 100;
    public long latencyMs = 0;
    public long initDelayMs = 0;
    /** Forced protocol version, or {@code null} to negotiate. */
    public String protocolVersion;
    /** Text to print on stderr at startup, or {@code null}. */
    public String stderrText;
    public String name = "mcp-testkit";
    /** The file of extra tools and instructions, or {@code null}. */
    public String toolsFile;
    public final Set<Fault> faults = EnumSet.noneOf(Fault.class);
    /** The protocol era: {@code legacy}, {@code modern} or {@code dual}. */
    public String era = "legacy";
    /** Whether {@code --era} was given: only then are the tools {@code ask} and {@code received} offered. */
    public boolean eraGiven;
    /** The caching hints of the modern era's tools/list pages. */
    public long listTtlMs = 0;
    public String listScope = "public";
    /** The pollIntervalMs of the tasks extension, or -1 when the server does not offer it. */
    public long tasksPollMs = -1;
    /** The features of {@code --features}: prompts, resources, completions, subscriptions, list-changes, skills,
     * logging, large-results. */
    public final Set<String> features = new java.util.LinkedHashSet<>();
    /** The size of the binary resource. */
    public int blobBytes = 1024;
    /** With {@code --features logging}: an info message every so many milliseconds (0: none). */
    public int logEveryMs;
    /** The file written on stdin EOF, or {@code null}. */
    public String exitMarker;
    /** The file each notifications/cancelled's requestId is appended to, or {@code null}. */
    public String cancelLog;
    /** The file each tools/call is appended to ({@code --call-log}), or {@code null}. */
    public String callLog;
    /** How many of the first starts fail ({@code --fail-first}); 0: none. */
    public int failFirst;
    /** The file that counts the starts of {@code --fail-first}, or {@code null}. */
    public String stateFile;
    /** How a failing start fails: {@code exit} or {@code hang}. */
    public String failWith = "exit";
    /**
     * The tools of {@code --tool-ui}, by name: the audiences of their {@code _meta.ui.visibility}, or {@code null}
     * for a ui object without it.
     */
    public final java.util.Map<String, java.util.List<String>> toolUi = new java.util.LinkedHashMap<>();

    /**
     * Parses the arguments.
     *
     * @throws IllegalArgumentException with a message for the user when an option is unknown or malformed
     */
    public static Options parse(String... args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String opt = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(isKnown(opt) ? "missing value for " + opt : "unknown option: " + opt);
            }
            String value = args[++i];
            switch (opt) {
                case "--tools": o.tools = number(opt, value); break;
                case "--page-size": o.pageSize = Math.max(1, number(opt, value)); break;
                case "--latency-ms": o.latencyMs = number(opt, value); break;
                case "--init-delay-ms": o.initDelayMs = number(opt, value); break;
                case "--protocol-version": o.protocolVersion = value; break;
                case "--stderr": o.stderrText = value; break;
                case "--name": o.name = value; break;
                case "--tools-file": o.toolsFile = value; break;
                case "--exit-marker": o.exitMarker = value; break;
                case "--cancel-log": o.cancelLog = value; break;
                case "--call-log": o.callLog = value; break;
                case "--tasks": o.tasksPollMs = number(opt, value); break;
                case "--fault": o.faults.add(fault(value)); break;
                case "--blob-bytes": o.blobBytes = number(opt, value); break;
                case "--log-every": o.logEveryMs = number(opt, value); break;
                case "--tool-ui": toolUi(o, value); break;
                case "--fail-first": o.failFirst = number(opt, value); break;
                case "--state": o.stateFile = value; break;
                case "--fail-with":
                    if (!Set.of("exit", "hang").contains(value)) {
                        throw new IllegalArgumentException("--fail-with is exit or hang, got: " + value);
                    }
                    o.failWith = value;
                    break;
                case "--features":
                    for (String feature : value.split(",")) {
                        if (!Set.of("prompts", "resources", "completions", "subscriptions", "list-changes", "skills",
                                "logging", "large-results", "sandbox-probes", "trace-context")
                                .contains(feature)) {
                            throw new IllegalArgumentException("--features takes prompts, resources, completions,"
                                    + " subscriptions, list-changes, skills, logging, large-results, sandbox-probes and"
                                    + " trace-context,"
                                    + " got: " + feature);
                        }
                        o.features.add(feature);
                    }
                    break;
                case "--list-ttl-ms":
                    try {
                        o.listTtlMs = Long.parseLong(value); // negative allowed: a client must floor it to 0
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--list-ttl-ms needs an integer, got: " + value);
                    }
                    break;
                case "--list-scope":
                    if (!Set.of("public", "private").contains(value)) {
                        throw new IllegalArgumentException("--list-scope is public or private, got: " + value);
                    }
                    o.listScope = value;
                    break;
                case "--era":
                    if (!Set.of("legacy", "modern", "dual").contains(value)) {
                        throw new IllegalArgumentException("--era is legacy, modern or dual, got: " + value);
                    }
                    o.era = value;
                    o.eraGiven = true;
                    break;
                default: throw new IllegalArgumentException("unknown option: " + opt);
            }
        }
        if (o.failFirst > 0 && o.stateFile == null) {
            throw new IllegalArgumentException("--fail-first needs --state FILE, where the starts are counted");
        }
        return o;
    }

    /** True when the feature was asked for with {@code --features}. */
    public boolean offers(String feature) {
        return features.contains(feature);
    }

    /** True when the fault was switched on. */
    public boolean has(Fault fault) {
        return faults.contains(fault);
    }

    private static boolean isKnown(String opt) {
        return Set.of("--tools", "--page-size", "--latency-ms", "--init-delay-ms", "--protocol-version",
                "--stderr", "--name", "--tools-file", "--exit-marker", "--cancel-log", "--call-log", "--fault", "--era", "--list-ttl-ms", "--list-scope", "--tasks", "--features", "--blob-bytes", "--log-every", "--tool-ui", "--fail-first", "--state", "--fail-with").contains(opt);
    }

    private static int number(String opt, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(opt + " needs a non-negative integer, got: " + value);
        }
    }

    private static void toolUi(Options o, String value) {
        int equals = value.indexOf('=');
        String name = equals < 0 ? value : value.substring(0, equals);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("--tool-ui needs a tool name, got: " + value);
        }
        java.util.List<String> audiences = null;
        if (equals >= 0) {
            String list = value.substring(equals + 1);
            audiences = list.isEmpty() ? java.util.List.of() : java.util.List.of(list.split(",", -1));
            for (String audience : audiences) {
                if (!audience.equals("model") && !audience.equals("app")) {
                    throw new IllegalArgumentException("--tool-ui audiences are model and app, got: " + audience);
                }
            }
        }
        o.toolUi.put(name, audiences);
    }

    private static Fault fault(String value) {
        for (Fault f : Fault.values()) {
            if (f.cliName().equals(value)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown fault: " + value);
    }
}
