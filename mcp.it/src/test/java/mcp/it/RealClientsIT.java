package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import mcp.api.McpJson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.function.ThrowingConsumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The official SDKs' own clients ({@link RealClient}: the TypeScript SDK v1 and v2, the Python SDK, the Java SDK),
 * each in every era it offers, against every {@link Target}: list the tools, call one, list and read a resource, list
 * and get a prompt, and the version they agreed on. The targets are real servers that exist today, standing in for
 * mcp-host's gateway: the Python SDK's {@code era_server.py} over stdio (each client starts its own) and over stateless
 * Streamable HTTP on 127.0.0.1, directly and behind a {@link TokenFront} that refuses requests without the bearer
 * token, as the gateway will. A gateway is one more row of {@link #targets()}.
 *
 * <p>Runs go in parallel (a few at a time), each bounded; every process is gone at the end. Each run's report and
 * diagnostics stay in {@code mcp.it/target/real-clients-*}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealClientsIT {

    /** What each probe may take; it is killed 15 s later if still there. */
    private static final Duration BOUND = Duration.ofSeconds(45);

    /** The Python SDK's era server, the upstream of every target here. */
    private static final EraPeer PY = EraPeer.python();

    /**
     * What a target serves and what every client must see of it: here the surface of {@code era_server.py}. A gateway
     * in front of that server alone passes its names through unchanged, so it serves the same surface.
     */
    record Surface(List<String> tools, String tool, String arguments, String toolText, String resourceUri,
            String resourceText, String prompt, Map<String, String> promptArguments, String promptText) {

        static final Surface ERA_SERVER = new Surface(List.of("add", "greet", "grow", "bump"), "add",
                "{\"a\": 40, \"b\": 2}", "42", "era://notes/readme", "Notes of the era server.", "trip",
                Map.of("city", "Paris", "days", "2"), "Plan 2 days in Paris.");

        /** @return the probes' script: tools, call, read, prompt, in this order */
        String script() {
            ArrayNode script = McpJson.mapper().createArrayNode();
            script.addObject().put("op", "tools");
            script.addObject().put("op", "call").put("name", tool).set("arguments", McpJson.mapper().readTree(arguments));
            script.addObject().put("op", "read").put("uri", resourceUri);
            ObjectNode prompt = script.addObject().put("op", "prompt").put("name", prompt());
            ObjectNode promptArgs = prompt.putObject("arguments");
            promptArguments.forEach(promptArgs::put);
            return script.toString();
        }
    }

    private static final String TOKEN = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));

    private static LoopbackServer pyHttp;
    /** The front of the token-carrying rows: it must refuse nothing. */
    private static TokenFront front;
    /** The front that the refused runs meet, apart so that their refusals are told from the others'. */
    private static TokenFront refusingFront;
    /** mcp-host serve --http in front of the same server. */
    private static LoopbackServer gatewayHttp;
    private static Instant started;
    private static ExecutorService runs;
    /** The targets of every row, fixed once their servers run. */
    private static List<Target> targets;
    /** A server that never answers, for the bound of each probe. */
    private static Target silent;

    /** Each run's report and diagnostics are kept here, for a look after a failure. */
    private static Path work;

    @BeforeAll
    static void start() throws Exception {
        PY.assertInstalled();
        RealClient.all().forEach(RealClient::assertInstalled);
        started = Instant.now();
        work = Files.createTempDirectory(Files.createDirectories(Path.of("target").toAbsolutePath()), "real-clients-");
        pyHttp = new LoopbackServer(PY::httpCommand);
        front = new TokenFront(pyHttpUrl(), TOKEN);
        refusingFront = new TokenFront(pyHttpUrl(), TOKEN);
        // The gateway in front of the same server, over stdio and over HTTP with its token: with one server in view
        // it passes the server's own names through, so every client must see exactly what it sees directly.
        Path gatewayHome = Files.createDirectories(work.resolve("gateway-home"));
        Path gatewayConfig = work.resolve("gateway.json");
        ObjectNode upstream = McpJson.object().put("command", PY.runtime().toString());
        upstream.putArray("args").add(PY.script().toString());
        Files.writeString(gatewayConfig, McpJson.object().set("mcpServers", McpJson.object().set("py", upstream))
                .toString());
        List<String> gateway = List.of("env", "HOME=" + gatewayHome, Cli.IMAGE.resolve("bin/mcp-host").toString(),
                "--config", gatewayConfig.toString(), "serve");
        gatewayHttp = new LoopbackServer(port -> concat(gateway, "--http", "--port", Integer.toString(port)));
        String token = Cli.run(gatewayHome, work, Map.of(), "serve", "--token").out().strip();
        targets = List.of(
                Target.stdio("py-stdio", pyStdioCommand()),
                Target.http("py-http", pyHttpUrl()),
                Target.http("py-http-behind-token", front.url(), front.header()),
                Target.stdio("gateway-stdio", concat(gateway, "--stdio")),
                Target.http("gateway-http", URI.create("http://127.0.0.1:" + gatewayHttp.port() + "/mcp"),
                        Map.of("Authorization", "Bearer " + token)));
        silent = Target.stdio("a silent stdio server", List.of(PY.runtime().toString(), "-c",
                "import sys; sys.stdin.read()"));
        // Each run is mostly waiting for a process to start: a few at a time, not one per core.
        runs = Executors.newFixedThreadPool(Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors())), r -> {
            Thread thread = new Thread(r, "real-clients-run");
            thread.setDaemon(true);
            return thread;
        });
    }

    @AfterAll
    static void stop() throws Exception {
        if (runs != null) {
            runs.shutdownNow();
        }
        if (front != null) {
            front.close();
        }
        if (refusingFront != null) {
            refusingFront.close();
        }
        if (pyHttp != null) {
            pyHttp.close();
        }
        if (gatewayHttp != null) {
            gatewayHttp.close();
        }
        EraPeer.assertNoChildLeft();
        assertNoStdioServerLeft();
    }

    private static List<String> concat(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all;
    }

    private static List<String> pyStdioCommand() {
        return List.of(PY.runtime().toString(), PY.script().toString());
    }

    private static URI pyHttpUrl() {
        return URI.create("http://127.0.0.1:" + pyHttp.port() + "/mcp");
    }

    /**
     * The targets every client meets, each serving {@link Surface#ERA_SERVER} in both eras: the Python SDK's server
     * over stdio, over HTTP, and over HTTP behind a bearer token. A gateway in front of that server is one more.
     */
    static List<Target> targets() {
        return targets;
    }

    /** @return the version an era must reach on a target that speaks both (every target here does) */
    private static String expectedVersion(String era) {
        return era.equals("2025") ? "2025-11-25" : "2026-07-28";
    }

    private static CompletableFuture<RealClient.Seen> submit(RealClient client, Target target, String era, String script,
            Duration bound) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return client.run(target, era, script, bound, work);
            } catch (Exception e) {
                throw new IllegalStateException(client + " --era " + era + " -> " + target + " did not run", e);
            }
        }, runs);
    }

    private static RealClient.Seen join(CompletableFuture<RealClient.Seen> run) throws Exception {
        RealClient.Seen seen = run.get(BOUND.toSeconds() + 60, TimeUnit.SECONDS);
        System.out.println("RealClientsIT: " + seen.summary());
        return seen;
    }

    /** One test of a run started at once: it waits for the run and judges what it saw. */
    private static DynamicTest row(RealClient client, Target target, String era, String script, Duration bound,
            ThrowingConsumer<RealClient.Seen> check) {
        CompletableFuture<RealClient.Seen> run = submit(client, target, era, script, bound);
        return DynamicTest.dynamicTest(target + " <- " + client + " --era " + era, () -> check.accept(join(run)));
    }

    /**
     * Every run starts when this factory is called (a few at a time), and each test waits for its own: the groups
     * overlap instead of following each other.
     */
    @TestFactory
    @Order(1)
    Stream<DynamicContainer> realClients() {
        String script = Surface.ERA_SERVER.script();
        // The silent server's runs first: they mostly wait out their bound.
        List<DynamicTest> silentRuns = new ArrayList<>();
        for (RealClient client : RealClient.all()) {
            silentRuns.add(row(client, silent, client.eras().get(0), script, Duration.ofSeconds(5),
                    RealClientsIT::endedAtItsBound));
        }
        List<DynamicTest> surfaceRuns = new ArrayList<>();
        for (Target target : targets()) {
            for (RealClient client : RealClient.all()) {
                for (String era : client.eras()) {
                    surfaceRuns.add(row(client, target, era, script, BOUND,
                            seen -> sawTheSurface(seen, Surface.ERA_SERVER, expectedVersion(era),
                                    target.name().startsWith("gateway") ? "mcp-host" : "era-server")));
                }
            }
        }
        Target wrongToken = Target.http("py-http-behind-token with a wrong token", refusingFront.url(),
                Map.of("Authorization", "Bearer not-" + TOKEN));
        List<DynamicTest> refusedRuns = new ArrayList<>();
        for (RealClient client : RealClient.all()) {
            refusedRuns.add(row(client, wrongToken, client.eras().get(0), script, BOUND, RealClientsIT::wasRefused));
        }
        return Stream.of(
                DynamicContainer.dynamicContainer("every client in each of its eras lists, calls, reads and gets a prompt",
                        surfaceRuns),
                DynamicContainer.dynamicContainer("a refused token is reported as an error, not a hang", refusedRuns),
                DynamicContainer.dynamicContainer("a silent server ends at the probe's bound with a report", silentRuns));
    }

    private static void sawTheSurface(RealClient.Seen seen, Surface surface, String version, String serverName) {
        JsonNode report = seen.report();
        assertNotNull(report, seen::toString);
        assertEquals(0, seen.exitCode(), seen::toString);
        assertEquals(List.of(), seen.leftBehind(), () -> "the client ended what it started: " + seen);
        assertTrue(report.path("ok").asBoolean(), seen::toString);
        assertEquals(version, report.path("protocolVersion").asString(), seen::toString);

        List<String> tools = strings(seen.operation(0).path("tools"));
        assertTrue(tools.containsAll(surface.tools()), () -> "tools " + tools + ": " + seen);

        JsonNode call = seen.operation(1);
        assertFalse(call.path("isError").asBoolean(), seen::toString);
        assertEquals(List.of(surface.toolText()), strings(call.path("text")), seen::toString);

        JsonNode read = seen.operation(2);
        assertTrue(read.path("listed").asBoolean(), () -> "resources/list names " + surface.resourceUri() + ": " + seen);
        assertEquals(surface.resourceUri(), read.path("contents").path(0).path("uri").asString(), seen::toString);
        assertEquals(surface.resourceText(), read.path("contents").path(0).path("text").asString(), seen::toString);

        JsonNode prompt = seen.operation(3);
        assertTrue(prompt.path("listed").asBoolean(), () -> "prompts/list names " + surface.prompt() + ": " + seen);
        JsonNode messages = prompt.path("messages");
        assertEquals(1, messages.size(), seen::toString);
        assertEquals("user", messages.path(0).path("role").asString(), seen::toString);
        assertEquals(surface.promptText(), messages.path(0).path("text").asString(), seen::toString);

        // Where the client reports who answered (a 2026 server may leave itself unnamed): the era server, or the
        // gateway in front of it.
        JsonNode server = report.path("serverInfo");
        if (server.isObject()) {
            assertEquals(serverName, server.path("name").asString(), seen::toString);
        }
    }

    /** With a wrong token: the error as data (a report that says so, exit code 1, no operation run), and no hang. */
    private static void wasRefused(RealClient.Seen seen) {
        assertEquals(1, seen.exitCode(), seen::toString);
        assertEquals(List.of(), seen.leftBehind(), seen::toString);
        assertNotNull(seen.report(), seen::toString);
        assertFalse(seen.report().path("ok").asBoolean(), seen::toString);
        assertFalse(seen.report().path("error").path("message").asString().isEmpty(), seen::toString);
        assertTrue(seen.report().path("operations").isEmpty(), seen::toString);
    }

    /**
     * A server that never answers: the probe ends at its bound with a report that says so (exit code 1, error
     * "timeout"), and its server, which reads its stdin to the end, goes with it.
     */
    private static void endedAtItsBound(RealClient.Seen seen) {
        assertEquals(1, seen.exitCode(), seen::toString);
        assertNotNull(seen.report(), seen::toString);
        assertFalse(seen.report().path("ok").asBoolean(), seen::toString);
        assertTrue(seen.report().path("error").path("message").asString().startsWith("timeout"), seen::toString);
        assertEquals(List.of(), seen.leftBehind(), seen::toString);
    }

    /**
     * The clients given the token sent it on every request, streams and session ends included (a refused GET stream or
     * DELETE need not fail a client, so the runs passing is not enough); the refused runs were refused.
     */
    @Test
    @Order(2)
    void theClientsSentTheirHeaderOnEveryRequest() {
        assertTrue(front.forwarded() > 0, "requests reached the server through the front");
        assertEquals(List.of(), front.refused(), "requests without the token, from runs that had it");
        assertNotEquals(List.of(), refusingFront.refused(), "the runs without the right token were refused");
        assertEquals(0, refusingFront.forwarded(), "nothing passed without the right token");
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(node -> values.add(node.asString()));
        return values;
    }

    /**
     * A stdio server that a client started and did not end would no longer be a descendant of this JVM once the client
     * exited: look for it among all processes, by its arguments and start time (5 s at most for one that is ending).
     * Each run checked its own already ({@link RealClient.Seen#leftBehind()}); this also covers a run that ended
     * badly.
     */
    private static void assertNoStdioServerLeft() throws InterruptedException {
        if (targets == null) {
            return;
        }
        List<List<String>> arguments = Stream.concat(targets.stream(), Stream.of(silent))
                .filter(t -> !t.command().isEmpty()).map(t -> t.command().subList(1, t.command().size())).toList();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            List<ProcessHandle> left = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().arguments().map(List::of).filter(arguments::contains).isPresent())
                    .filter(p -> p.info().startInstant().map(s -> !s.isBefore(started)).orElse(false))
                    .toList();
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                left.forEach(ProcessHandle::destroyForcibly);
                fail("a client left its stdio server running: " + left.stream().map(p -> p.pid() + " "
                        + p.info().commandLine().orElse("?")).toList());
            }
            Thread.sleep(100);
        }
    }
}
