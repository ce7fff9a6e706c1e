package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import mcp.api.McpException;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.testkit.AuthTestServer;
import mcp.testkit.AuthTestServer.Endpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A renewal under the credential's lock, with two OAuth clients of one credential in this JVM standing in for two
 * processes, one after the other so that each case is certain: the second takes what the first stored rather than
 * spending the refresh token the first already spent. The server revokes a grant whose refresh token comes back,
 * so a spent one sent again would show as a lost credential and a recorded error.
 */
class RenewalTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path temp;

    private AuthTestServer server;
    private FileAuthStorage storage;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "mcp-test-renewal-oauth");
        thread.setDaemon(true);
        return thread;
    });

    @BeforeEach
    void start() throws IOException {
        server = AuthTestServer.builder().detectRefreshTokenReuse(true).start();
        storage = new FileAuthStorage(temp.resolve("credentials"));
    }

    @AfterEach
    void stop() throws InterruptedException {
        server.close();
        executor.shutdownNow();
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
    }

    private OAuthClient client(Clock clock, Duration lockTimeout, boolean withUi) {
        return client(storage, clock, lockTimeout, withUi);
    }

    private OAuthClient client(AuthStorage storage, Clock clock, Duration lockTimeout, boolean withUi) {
        AuthServices services = withUi ? new AuthServices(storage, Optional.of(new HeadlessAuthorizationUi()))
                : AuthServices.storedOnly(storage);
        return new OAuthClient("remote", URI.create(server.mcpUrl()), Optional.empty(), services,
                new OAuthHttp(HttpClient.newHttpClient(), TIMEOUT, "mcp-host-test"), executor, clock, lockTimeout);
    }

    private OAuthClient client() {
        return client(Clock.systemUTC(), TIMEOUT, false);
    }

    private static void refused(OAuthClient client) throws Exception {
        client.challenged(401, List.of("Bearer error=\"invalid_token\""), client.authorization(), 1, "HTTP 401 (test)")
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private void login() throws Exception {
        OAuthClient client = client(Clock.systemUTC(), TIMEOUT, true);
        client.challenged(401, List.of("Bearer"), Optional.empty(), 1, "HTTP 401 (test)")
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private boolean storedIsActive() {
        var stored = storage.load("remote").orElseThrow();
        return server.isActive(stored.accessToken()) && server.isActive(stored.refreshToken().orElseThrow());
    }

    @Test
    void aClientRefusedATokenThatAnotherHolderRenewedTakesTheRenewedOne() throws Exception {
        login();
        OAuthClient first = client();
        OAuthClient second = client();
        Optional<String> held = second.authorization();
        refused(first);
        assertEquals(1, server.tokenRequests("refresh_token"));
        refused(second);
        assertEquals(1, server.tokenRequests("refresh_token"), "the second client spent no refresh token");
        assertNotEquals(held, second.authorization());
        assertEquals(first.authorization(), second.authorization());
        assertTrue(storedIsActive());
        assertEquals(List.of(), server.errors());
    }

    @Test
    void aClientWhoseTokenExpiredTakesTheOneAnotherHolderRenewed() throws Exception {
        login();
        Clock later = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));
        OAuthClient first = client(later, TIMEOUT, false);
        OAuthClient second = client(later, TIMEOUT, false);
        second.authorization();
        first.ready().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        second.ready().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(1, server.tokenRequests("refresh_token"));
        assertEquals(first.authorization(), second.authorization());
        assertTrue(storedIsActive());
        assertEquals(List.of(), server.errors());
    }

    @Test
    void whenTheRenewedOneHasExpiredTooItIsRenewedWithItsOwnRefreshToken() throws Exception {
        login();
        OAuthClient first = client();
        OAuthClient second = client(Clock.offset(Clock.systemUTC(), Duration.ofHours(2)), TIMEOUT, false);
        second.authorization();
        refused(first);
        // For the second client, the first one's renewal has expired as well: renewed once more, with its token.
        second.ready().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(2, server.tokenRequests("refresh_token"));
        assertNotEquals(first.authorization(), second.authorization());
        assertTrue(storedIsActive());
        assertEquals(List.of(), server.errors(), "no spent refresh token was sent");
    }

    @Test
    void aClientThatHoldsWhatIsStoredRenewsIt() throws Exception {
        login();
        OAuthClient only = client();
        Optional<String> before = only.authorization();
        refused(only);
        refused(only);
        assertEquals(2, server.tokenRequests("refresh_token"));
        assertNotEquals(before, only.authorization());
        assertTrue(storedIsActive());
    }

    @Test
    void aLockHeldTooLongFailsTheRequestWithoutANewAuthorization() throws Exception {
        login();
        int authorizations = server.requests(Endpoint.AUTHORIZATION);
        OAuthClient client = client(Clock.systemUTC(), Duration.ofMillis(100), true);
        Optional<String> before = client.authorization();
        try (AuthStorage.CredentialLock held = storage.lock("remote", TIMEOUT)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> refused(client));
            McpException cause = assertInstanceOf(McpException.class, e.getCause());
            assertTrue(cause.getMessage().startsWith("The credential \"remote\" is being renewed by another thread of "
                    + "this process, which did not release its lock " + storage.lockFile("remote") + " within 100 ms."),
                    cause.getMessage());
        }
        assertEquals(authorizations, server.requests(Endpoint.AUTHORIZATION), "no new authorization");
        assertEquals(0, server.tokenRequests("refresh_token"));
        assertEquals(before, client.authorization());
        // Once the holder is done, the same client renews.
        refused(client);
        assertEquals(1, server.tokenRequests("refresh_token"));
    }

    @Test
    void aStoreWithoutALockOfItsOwnKeepsTheThreadsOfThisJvmApart() throws Exception {
        AuthStorage memory = AuthStorage.inMemory();
        client(memory, Clock.systemUTC(), TIMEOUT, true).challenged(401, List.of("Bearer"), Optional.empty(), 1,
                "HTTP 401 (test)").get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        OAuthClient first = client(memory, Clock.systemUTC(), TIMEOUT, false);
        OAuthClient second = client(memory, Clock.systemUTC(), TIMEOUT, false);
        // Both renew at once, on two threads, from the credential both read.
        var renewals = List.of(
                first.challenged(401, List.of("Bearer"), first.authorization(), 1, "HTTP 401 (test)"),
                second.challenged(401, List.of("Bearer"), second.authorization(), 1, "HTTP 401 (test)"));
        for (var renewal : renewals) {
            renewal.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        assertEquals(1, server.tokenRequests("refresh_token"));
        assertEquals(first.authorization(), second.authorization());
        assertEquals(List.of(), server.errors());
    }
}
