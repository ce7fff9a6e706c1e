package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.ServerConfig;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthStorage;
import mcp.auth.internal.FileAuthStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code values} resolver: commands, environment names, stored bearer credentials, and never a
 * secret in the log.
 */
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

    // ---- stored bearer credentials ----------------------------------------------------------------

    private static StoredCredential credential(String token, Optional<Instant> expiresAt) {
        return new StoredCredential(token, "Bearer", Optional.of("refresh-" + token), expiresAt, List.of("read"),
                Instant.now(), Map.of(StoredCredential.CLIENT_SECRET, "client-secret-of-" + token));
    }

    private AuthResolver.Context withStorage(AuthStorage storage) {
        return new AuthResolver.Context() {
            @Override
            public Map<String, String> environment() {
                return env;
            }

            @Override
            public Optional<AuthStorage> authStorage() {
                return Optional.of(storage);
            }
        };
    }

    private FileAuthStorage storageWith(String credentialId, StoredCredential credential) {
        FileAuthStorage storage = new FileAuthStorage(dir.resolve("credentials"));
        storage.save(credentialId, credential);
        return storage;
    }

    @Test
    void aStoredCredentialBecomesTheBearerHeaderOrTheTokenVariable() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        AuthResolver.Context withStorage = withStorage(storageWith("remote-cred",
                credential("stored-secret-1", Optional.of(Instant.now().plusSeconds(3600)))));
        Optional<AuthRef> auth = Optional.of(new AuthRef("oauth", "remote-cred"));
        String[] log = new String[1];
        log[0] = captureStderr(() -> {
            HttpServerConfig http = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                    .withHeaders(Map.of("X-Team", "platform")).withAuth(auth);
            assertEquals(Map.of("X-Team", "platform", "Authorization", "Bearer stored-secret-1"),
                    ((HttpServerConfig) resolver.resolve("srv", http, withStorage)).headers());
            assertEquals(Map.of("X-Team", "platform"), http.headers(), "the input is untouched");

            SseServerConfig sse = new SseServerConfig("http://127.0.0.1:1/sse", Map.of(), ServerConfig.DEFAULT_TIMEOUT,
                    true, Optional.of(new AuthRef("apikey", "remote-cred")), Optional.empty(), List.of());
            assertEquals(Map.of("Authorization", "Bearer stored-secret-1"),
                    ((SseServerConfig) resolver.resolve("srv", sse, withStorage)).headers());

            StdioServerConfig stdio = new StdioServerConfig("server", List.of(), Map.of("OTHER", "MY_TOKEN"),
                    Optional.empty(), ServerConfig.DEFAULT_TIMEOUT, true, auth, Optional.empty(), List.of());
            assertEquals(Map.of("OTHER", "tok-from-env", "OAUTH_ACCESS_TOKEN", "stored-secret-1"),
                    ((StdioServerConfig) resolver.resolve("srv", stdio, withStorage)).env());
        });
        assertTrue(log[0].contains("MCP server \"srv\": Authorization set from the stored credential \"remote-cred\""),
                log[0]);
        assertFalse(log[0].contains("stored-secret-1"), log[0]);
    }

    @Test
    void aDpopBoundTokenIsNeverMadeABearerHeader() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        StoredCredential dpop = new StoredCredential("stored-dpop-token", "DPoP", Optional.empty(),
                Optional.of(Instant.now().plusSeconds(3600)), List.of(), Instant.now(), Map.of());
        AuthResolver.Context withStorage = withStorage(storageWith("bound", dpop));
        HttpServerConfig http = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                .withAuth(Optional.of(new AuthRef("oauth", "bound")));
        // Only the OAuth client, which proves the key with every request, may present it.
        assertEquals(Map.of(), ((HttpServerConfig) resolver.resolve("srv", http, withStorage)).headers());
    }

    @Test
    void aCredentialObtainedForAnotherUrlIsNeverSent() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        StoredCredential forOld = credential("stored-secret-2", Optional.of(Instant.now().plusSeconds(3600)))
                .withAttributes(Map.of(StoredCredential.RESOURCE, "https://old.example.com/mcp"));
        AuthResolver.Context withStorage = withStorage(storageWith("moved", forOld));
        Optional<AuthRef> auth = Optional.of(new AuthRef("oauth", "moved"));
        HttpServerConfig moved = HttpServerConfig.of("https://new.example.com/mcp").withAuth(auth);
        assertEquals(Map.of(), ((HttpServerConfig) resolver.resolve("srv", moved, withStorage)).headers());
        // The same server, written with another case and a trailing slash, still gets it.
        HttpServerConfig same = HttpServerConfig.of("https://OLD.example.com/mcp/").withAuth(auth);
        assertEquals(Map.of("Authorization", "Bearer stored-secret-2"),
                ((HttpServerConfig) resolver.resolve("srv", same, withStorage)).headers());
    }

    @Test
    void whatTheConfigSetsItselfWinsOverTheStoredCredential() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        AuthResolver.Context withStorage = withStorage(storageWith("cred", credential("stored-secret-2",
                Optional.empty())));
        Optional<AuthRef> auth = Optional.of(new AuthRef("oauth", "cred"));
        HttpServerConfig http = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                .withHeaders(Map.of("authorization", "Token mine")).withAuth(auth);
        assertSame(http, resolver.resolve("srv", http, withStorage), "header names are case-insensitive");
        HttpServerConfig failing = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                .withHeaders(Map.of("Authorization", "!exit 1")).withAuth(auth);
        assertEquals(Map.of(), ((HttpServerConfig) resolver.resolve("srv", failing, withStorage)).headers(),
                "the config chose a command: its failure does not fall back to the store");
        StdioServerConfig stdio = new StdioServerConfig("server", List.of(), Map.of("OAUTH_ACCESS_TOKEN", "MY_TOKEN"),
                Optional.empty(), ServerConfig.DEFAULT_TIMEOUT, true, auth, Optional.empty(), List.of());
        assertEquals(Map.of("OAUTH_ACCESS_TOKEN", "tok-from-env"),
                ((StdioServerConfig) resolver.resolve("srv", stdio, withStorage)).env());
    }

    @Test
    void noCredentialNoStorageAnotherTypeOrAnExpiredTokenLeaveTheConfigAsItIs() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        FileAuthStorage storage = storageWith("expired", credential("expired-secret",
                Optional.of(Instant.now().minusSeconds(60))));
        AuthResolver.Context withStorage = withStorage(storage);
        HttpServerConfig missing = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                .withAuth(Optional.of(new AuthRef("oauth", "nothing-stored")));
        assertSame(missing, resolver.resolve("srv", missing, withStorage), "a missing credential is no error");
        assertSame(missing, resolver.resolve("srv", missing, context), "no storage");
        storage.save("basic", credential("basic-secret", Optional.empty()));
        HttpServerConfig otherType = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                .withAuth(Optional.of(new AuthRef("basic", "basic")));
        assertSame(otherType, resolver.resolve("srv", otherType, withStorage));
        HttpServerConfig noAuth = HttpServerConfig.of("http://127.0.0.1:1/mcp");
        assertSame(noAuth, resolver.resolve("srv", noAuth, withStorage));
        HttpServerConfig expired = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                .withAuth(Optional.of(new AuthRef("oauth", "expired")));
        StdioServerConfig expiredStdio = new StdioServerConfig("server", List.of(), Map.of(), Optional.empty(),
                ServerConfig.DEFAULT_TIMEOUT, true, Optional.of(new AuthRef("oauth", "expired")), Optional.empty(),
                List.of());
        String log = captureStderr(() -> {
            assertSame(expired, resolver.resolve("srv", expired, withStorage), "the OAuth client refreshes it");
            assertSame(expiredStdio, resolver.resolve("srv", expiredStdio, withStorage));
        });
        assertTrue(log.contains("MCP server \"srv\": the stored credential \"expired\" expired at"), log);
        assertTrue(log.contains("OAUTH_ACCESS_TOKEN is not set. Log in again."), log);
        assertFalse(log.contains("expired-secret"), log);
    }

    @Test
    void aBlankCredentialIdMeansTheServerName() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        AuthResolver.Context withStorage = withStorage(storageWith("srv", credential("by-name", Optional.empty())));
        HttpServerConfig http = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                .withAuth(Optional.of(new AuthRef("OAuth", " ")));
        assertEquals(Map.of("Authorization", "Bearer by-name"),
                ((HttpServerConfig) resolver.resolve("srv", http, withStorage)).headers());
    }

    @Test
    void aStoreThatCannotBeReadFailsTheResolveWithoutTheContent() throws Exception {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        FileAuthStorage storage = new FileAuthStorage(dir.resolve("credentials"));
        storage.save("cred", credential("fine", Optional.empty()));
        Path file = storage.file("cred");
        Files.writeString(file, "{\"access_token\": corrupt-store-secret}");
        HttpServerConfig http = HttpServerConfig.of("http://127.0.0.1:1/mcp")
                .withAuth(Optional.of(new AuthRef("oauth", "cred")));
        String[] message = new String[1];
        String log = captureStderr(() -> message[0] = assertThrows(McpException.class,
                () -> resolver.resolve("srv", http, withStorage(storage))).getMessage());
        assertTrue(message[0].startsWith("Credential file " + file + " is corrupt"), message[0]);
        assertFalse(message[0].contains("corrupt-store-secret") || log.contains("corrupt-store-secret"), message[0]);
    }

    @Test
    void authOptionsAreResolvedLikeHeaderValues() {
        ValuesAuthResolver resolver = new ValuesAuthResolver(new CommandRunner(Duration.ofSeconds(10)));
        AuthRef auth = new AuthRef("oauth", "cred", Map.of("clientId", "my-client", "clientSecret",
                "!echo option-secret-1", "privateKey", "MY_TOKEN", "scope", "read write", "callbackPort", "!exit 2"));
        HttpServerConfig http = HttpServerConfig.of("http://127.0.0.1:1/mcp").withAuth(Optional.of(auth));
        HttpServerConfig[] resolved = new HttpServerConfig[1];
        String log = captureStderr(() -> resolved[0] = (HttpServerConfig) resolver.resolve("srv", http, context));
        AuthRef options = resolved[0].auth().orElseThrow();
        assertEquals("oauth", options.type());
        assertEquals("cred", options.credentialId());
        assertEquals(Map.of("clientId", "my-client", "clientSecret", "option-secret-1", "privateKey", "tok-from-env",
                "scope", "read write"), options.options());
        assertEquals(auth, http.auth().orElseThrow(), "the input is untouched");
        assertTrue(log.contains("MCP server \"srv\": the command of auth option \"callbackPort\" exited with code 2; "
                + "the auth option is left out"), log);
        assertFalse(log.contains("option-secret-1") || log.contains("tok-from-env"), log);
        assertFalse(resolved[0].toString().contains("option-secret-1") || options.toString().contains("option-secret-1"));
        AuthRef plain = new AuthRef("oauth", "cred", Map.of("scope", "read write"));
        HttpServerConfig unchanged = HttpServerConfig.of("http://127.0.0.1:1/mcp").withAuth(Optional.of(plain));
        assertSame(unchanged, resolver.resolve("srv", unchanged, context));
    }
}
