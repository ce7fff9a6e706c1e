package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mcp.api.HttpServerConfig;
import mcp.api.ServerConfig;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.spi.AuthResolver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code values} resolver: commands, environment names, and never a secret in the log. */
class ValuesAuthResolverTest {

    @TempDir
    Path dir;

    private final Map<String, String> env = new LinkedHashMap<>(Map.of("PATH", System.getenv("PATH"),
            "MY_TOKEN", "tok-from-env", "EMPTY", ""));
    private final AuthResolver.Context context = () -> env;

    private static String captureStderr(Runnable body) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void headersAreResolvedFromCommandsAndEnvironmentNamesOnACopy() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        HttpServerConfig config = HttpServerConfig.of("http://127.0.0.1:1/mcp").withHeaders(Map.of(
                "Authorization", "!printf 'Bearer %s\\n' cmd-secret",
                "X-Token", "MY_TOKEN",
                "X-Empty", "EMPTY",
                "X-Plain", "application/json",
                "X-Unknown", "NOT_SET_ANYWHERE"));
        HttpServerConfig resolved = (HttpServerConfig) resolver.resolve("srv", config, context);
        assertEquals(Map.of("Authorization", "Bearer cmd-secret", "X-Token", "tok-from-env", "X-Empty", "EMPTY",
                "X-Plain", "application/json", "X-Unknown", "NOT_SET_ANYWHERE"), resolved.headers());
        assertEquals("!printf 'Bearer %s\\n' cmd-secret", config.headers().get("Authorization"), "the input is untouched");
    }

    @Test
    void stdioEnvAndSseHeadersToo() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        StdioServerConfig stdio = StdioServerConfig.of("server", List.of()).withEnv(Map.of("API_KEY", "!echo k1",
                "OTHER", "MY_TOKEN"));
        assertEquals(Map.of("API_KEY", "k1", "OTHER", "tok-from-env"),
                ((StdioServerConfig) resolver.resolve("srv", stdio, context)).env());
        SseServerConfig sse = SseServerConfig.of("http://127.0.0.1:1/sse").withHeaders(Map.of("Authorization", "!echo s1"));
        assertEquals(Map.of("Authorization", "s1"), ((SseServerConfig) resolver.resolve("srv", sse, context)).headers());
    }

    @Test
    void nothingToResolveReturnsTheSameConfig() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        ServerConfig config = HttpServerConfig.of("http://127.0.0.1:1/mcp").withHeaders(Map.of("Accept-Language", "en"));
        assertSame(config, resolver.resolve("srv", config, context));
    }

    @Test
    void aFailingOrSilentCommandRemovesTheKeyAndTheWarningNamesTheKeyButNeverTheValue() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        HttpServerConfig config = HttpServerConfig.of("http://127.0.0.1:1/mcp").withHeaders(Map.of(
                "Authorization", "!echo leaked-secret-1 >&2; exit 3",
                "X-Silent", "!true # quiet-secret-2",
                "X-Kept", "value"));
        HttpServerConfig[] resolved = new HttpServerConfig[1];
        String log = captureStderr(() -> resolved[0] = (HttpServerConfig) resolver.resolve("srv", config, context));
        assertEquals(Map.of("X-Kept", "value"), resolved[0].headers());
        assertTrue(log.contains("MCP server \"srv\": the command of header \"Authorization\" exited with code 3; the header "
                + "is left out"), log);
        assertTrue(log.contains("MCP server \"srv\": the command of header \"X-Silent\" printed nothing; the header is left "
                + "out"), log);
        assertFalse(log.contains("leaked-secret-1") || log.contains("quiet-secret-2") || log.contains("echo"), log);
    }

    @Test
    void aResultIsKeptForTheProcessAndConcurrentUsesShareOneRun() throws Exception {
        CommandRunner runner = new CommandRunner(Duration.ofSeconds(10));
        ValuesAuthResolver resolver = new ValuesAuthResolver(runner);
        Path counter = dir.resolve("runs");
        String command = "!sleep 0.3; echo x >> " + counter + "; echo token-$(wc -l < " + counter + ")";
        HttpServerConfig config = HttpServerConfig.of("http://127.0.0.1:1/mcp").withHeaders(Map.of("Authorization", command));
        List<CompletableFuture<ServerConfig>> parallel = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            parallel.add(CompletableFuture.supplyAsync(() -> resolver.resolve("srv" + parallel.size(), config, context)));
        }
        for (CompletableFuture<ServerConfig> result : parallel) {
            assertEquals("token-1", ((HttpServerConfig) result.get(20, TimeUnit.SECONDS)).headers().get("Authorization"));
        }
        assertEquals("token-1", ((HttpServerConfig) resolver.resolve("later", config, context)).headers().get("Authorization"));
        assertEquals(1, Files.readAllLines(counter).size(), "the command ran once");
    }

    @Test
    void aFailureIsNotKeptSoTheNextResolveTriesAgain() throws Exception {
        CommandRunner runner = new CommandRunner(Duration.ofSeconds(10));
        ValuesAuthResolver resolver = new ValuesAuthResolver(runner);
        Path flag = dir.resolve("ready");
        HttpServerConfig config = HttpServerConfig.of("http://127.0.0.1:1/mcp").withHeaders(Map.of("Authorization",
                "!cat " + flag));
        assertEquals(Map.of(), ((HttpServerConfig) resolver.resolve("srv", config, context)).headers());
        Files.writeString(flag, "second-try\n");
        assertEquals(Map.of("Authorization", "second-try"),
                ((HttpServerConfig) resolver.resolve("srv", config, context)).headers());
    }

    @Test
    void aCommandThatHangsIsKilledAtTheTimeout() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofMillis(300)));
        HttpServerConfig config = HttpServerConfig.of("http://127.0.0.1:1/mcp").withHeaders(Map.of("Authorization",
                "!sleep 30"));
        long start = System.nanoTime();
        String log = captureStderr(() -> assertEquals(Map.of(),
                ((HttpServerConfig) resolver.resolve("srv", config, context)).headers()));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 5000);
        assertTrue(log.contains("the command of header \"Authorization\" timed out after 300 ms"), log);
    }

    @Test
    void theCommandSeesTheHostsEnvironment() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        StdioServerConfig stdio = StdioServerConfig.of("server", List.of()).withEnv(Map.of("K", "!echo $MY_TOKEN-suffix"));
        assertEquals(Map.of("K", "tok-from-env-suffix"), ((StdioServerConfig) resolver.resolve("srv", stdio, context)).env());
    }
}
