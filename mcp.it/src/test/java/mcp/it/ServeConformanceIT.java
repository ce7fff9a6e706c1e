package mcp.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * The official suite, server side, against {@code mcp-host serve --http} (the runtime image, a process of its own)
 * in front of the testkit's conformance fixture: with the fixture as a stdio upstream, as an HTTP upstream (a process
 * of its own), and with four suite processes at once against one gateway and its one upstream process. Those four run
 * against the HTTP upstream: over stdio a server's log message says nothing of the request it belongs to, so with
 * calls of several clients in flight the gateway passes it to none of them (docs/serve.md). The gateway must score what the
 * fixture scores directly ({@link ConformanceServerIT}): every required scenario of 2025-11-25 (30) and of
 * 2026-07-28 (37), every check SUCCESS or INFO, and the scenarios not scored (the tasks extension, pending ones) that
 * the fixture passes. {@code --no-token}: the suite sends no token (it is warned at start).
 * The four suites at once reach a gateway that runs as a replica does ({@code MCP_HOST_GATEWAY_KEYS}: sealed session
 * ids, the replicas' shared request-state key, docs/replicas.md), the others single processes: a replica scores as one
 * process does, but for the tasks extension, which a replica offers only when told to ({@code --tasks}, as this one
 * is), and then for every tool.
 */
class ServeConformanceIT {

    private static Path work;
    private static LoopbackServer fixture;
    private static LoopbackServer overStdio;
    private static LoopbackServer overHttp;
    private static LoopbackServer replica;

    @TempDir
    Path temp;

    @BeforeAll
    static void start() throws Exception {
        work = Files.createTempDirectory(Files.createDirectories(Path.of("target").toAbsolutePath()), "serve-conf-");
        List<String> stdioFixture = TestServers.conformance();
        ObjectNode stdio = McpJson.object().put("command", stdioFixture.get(0));
        stdioFixture.subList(1, stdioFixture.size()).forEach(stdio.putArray("args")::add);
        overStdio = gateway("stdio", stdio, List.of());
        fixture = new LoopbackServer(port -> {
            List<String> command = new ArrayList<>(stdioFixture);
            command.addAll(List.of("--http", Integer.toString(port)));
            return command;
        });
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        String keys = "k1:" + Base64.getEncoder().encodeToString(secret);
        ObjectNode http = McpJson.object().put("type", "http")
                .put("url", "http://127.0.0.1:" + fixture.port() + "/mcp");
        overHttp = gateway("http", http, List.of());
        // A replica offers tasks only when told to: told, it runs as a task every call whose client wants one.
        replica = gateway("replica", http, List.of("MCP_HOST_GATEWAY_KEYS=" + keys), "--tasks");
        assertTrue(replica.output().stream().noneMatch(line -> line.contains(Base64.getEncoder().encodeToString(
                secret))), "the key is never printed: " + replica.output());
        ConformanceServerIT.warmUp(url(overStdio));
        ConformanceServerIT.warmUp(url(overHttp));
        ConformanceServerIT.warmUp(url(replica));
    }

    /**
     * {@code mcp-host serve --http --no-token} with the fixture as its one server, reached that way.
     *
     * @param env variables of the gateway's environment beside its HOME ({@code NAME=VALUE})
     */
    private static LoopbackServer gateway(String name, ObjectNode upstream, List<String> env, String... options)
            throws Exception {
        Path home = Files.createDirectories(work.resolve(name + "-home"));
        Path config = work.resolve(name + ".json");
        Files.writeString(config, McpJson.object().set("mcpServers", McpJson.object().set("conformance", upstream))
                .toString());
        return new LoopbackServer(port -> {
            List<String> command = new ArrayList<>(List.of("env", "HOME=" + home));
            command.addAll(env);
            command.addAll(List.of(Cli.IMAGE.resolve("bin/mcp-host").toString(), "--config", config.toString(), "serve",
                    "--http", "--no-token", "--port", Integer.toString(port)));
            command.addAll(List.of(options));
            return command;
        });
    }

    /** As {@code localhost}: the DNS-rebinding scenario applies only then. */
    private static URI url(LoopbackServer gateway) {
        return URI.create("http://localhost:" + gateway.port() + "/mcp");
    }

    @AfterAll
    static void stop() throws Exception {
        if (overStdio != null) {
            overStdio.close();
        }
        if (overHttp != null) {
            overHttp.close();
        }
        if (replica != null) {
            replica.close();
        }
        if (fixture != null) {
            fixture.close();
        }
        EraPeer.assertNoChildLeft();
    }

    @Test
    void withAStdioUpstreamEveryRequiredScenarioPassesInBothRevisions() throws Exception {
        ConformanceServerIT.judge(temp, "serve, stdio upstream", url(overStdio).toString(), "2025-11-25", 30);
        ConformanceServerIT.judge(temp, "serve, stdio upstream", url(overStdio).toString(), "2026-07-28", 37);
    }

    @Test
    void withAnHttpUpstreamEveryRequiredScenarioPassesInBothRevisions() throws Exception {
        ConformanceServerIT.judge(temp, "serve, HTTP upstream", url(overHttp).toString(), "2025-11-25", 30);
        ConformanceServerIT.judge(temp, "serve, HTTP upstream", url(overHttp).toString(), "2026-07-28", 37);
    }

    @Test
    void fourSuitesAtOnceAgainstOneGatewayAndOneUpstreamAllPass() throws Exception {
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        // Four threads of their own: the common pool has one on two cores, which would run the suites in turn.
        ExecutorService threads = Executors.newFixedThreadPool(4);
        for (int i = 0; i < 4; i++) {
            String revision = i % 2 == 0 ? "2025-11-25" : "2026-07-28";
            int expected = revision.equals("2025-11-25") ? 30 : 37;
            Path directory = temp.resolve("parallel-" + i);
            runs.add(CompletableFuture.runAsync(() -> {
                try {
                    // With --tasks every tool may be a task, so the extension's scenarios that need one to stay
                    // plain (tasks-sync-tool-call) do not pass there: the extension is judged on the others.
                    ConformanceServerIT.judge(directory, "serve, 4 suites at once", url(replica).toString(), revision,
                            expected, scenario -> scenario.startsWith("tasks-"));
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            }, threads));
        }
        try {
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(15, TimeUnit.MINUTES);
        } finally {
            threads.shutdownNow();
        }
    }
}
