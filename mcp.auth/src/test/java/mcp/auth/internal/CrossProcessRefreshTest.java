package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthServices;
import mcp.testkit.AuthTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two real mcp-host processes ({@link OtherProcess}) share one file store and one rotating refresh token, and
 * renew it at the same moment, round after round, against an authorization server that revokes a grant whose
 * rotated refresh token comes back: one renewal per round may reach the token endpoint, or the credential is
 * lost. After each round the stored credential must still be one the server takes, and both processes must hold
 * a token the MCP server takes. A round that goes wrong is counted, and the credential is replaced by a new
 * login, so that every round tells on its own; the test fails with the list.
 */
class CrossProcessRefreshTest {

    private static final int ROUNDS = 100;

    /** How far ahead a round's start is set: enough for both children to read it first. */
    private static final long LEAD_MICROS = 20_000;

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path temp;

    private AuthTestServer server;
    private FileAuthStorage storage;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "mcp-test-parent-oauth");
        thread.setDaemon(true);
        return thread;
    });
    private final List<OtherProcess.Handle> children = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = AuthTestServer.builder().detectRefreshTokenReuse(true).start();
        storage = new FileAuthStorage(temp.resolve("credentials"));
    }

    @AfterEach
    void stop() throws InterruptedException {
        children.forEach(OtherProcess.Handle::close);
        server.close();
        executor.shutdownNow();
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
    }

    /**
     * @param mode {@code fresh}: each round is two runs of mcp-host that start together with the stored credential;
     *     {@code kept}: two hosts that stay up, each with the credential it last used in memory
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fresh", "kept"})
    void twoProcessesThatRenewOneRotatingCredentialTogetherLoseNothing(String mode) throws Exception {
        login();
        OtherProcess.Handle a = child("a", mode);
        OtherProcess.Handle b = child("b", mode);
        List<String> problems = new ArrayList<>();
        int lost = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            // Both ways to a renewal: a token about to expire before a request, and a 401 for the token sent.
            String trigger = round % 2 == 1 ? "expired" : "refused";
            String command = "round " + round + " " + trigger + " " + (OtherProcess.nowMicros() + LEAD_MICROS);
            a.send(command);
            b.send(command);
            List<String> wrong = new ArrayList<>();
            for (OtherProcess.Handle child : List.of(a, b)) {
                String answer = child.answer();
                if (!answer.equals("ok " + round)) {
                    wrong.add("process " + child + ": " + answer);
                }
            }
            StoredCredential stored = storage.load(OtherProcess.CREDENTIAL_ID).orElseThrow();
            if (!server.isActive(stored.accessToken()) || !server.isActive(stored.refreshToken().orElseThrow())) {
                lost++;
                wrong.add("the stored credential is no longer taken by the server");
            }
            if (!wrong.isEmpty()) {
                problems.add("round " + round + " (" + trigger + "): " + String.join("; ", wrong));
                login();
            }
        }
        assertEquals(0, a.finish(), "see " + a.log());
        assertEquals(0, b.finish(), "see " + b.log());
        assertEquals(List.of(), problems, lost + " of " + ROUNDS + " rounds lost the stored credential, "
                + problems.size() + " went wrong");
        // One renewal per round reached the token endpoint: the other process took the stored one.
        assertEquals(ROUNDS, server.tokenRequests("refresh_token"));
        assertEquals(List.of(), server.errors(), "no refresh token was ever sent twice");
    }

    private OtherProcess.Handle child(String name, String mode) throws IOException {
        OtherProcess.Handle child = OtherProcess.Handle.start(name + "-" + mode, storage.directory(), server.mcpUrl(),
                mode, temp);
        children.add(child);
        return child;
    }

    /** Stores a credential from a new authorization (the headless UI follows the server's redirect). */
    private void login() throws Exception {
        OAuthClient client = new OAuthClient(OtherProcess.CREDENTIAL_ID, URI.create(server.mcpUrl()), Optional.empty(),
                new AuthServices(storage, Optional.of(new HeadlessAuthorizationUi())),
                new OAuthHttp(HttpClient.newHttpClient(), TIMEOUT, "mcp-host-test"), executor, Clock.systemUTC());
        // A second challenge of the request: no refresh, a new authorization.
        client.challenged(401, List.of("Bearer resource_metadata=\"" + server.resourceMetadataUrl() + "\""),
                client.authorization(), 2, "HTTP 401 (test)").get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(storage.load(OtherProcess.CREDENTIAL_ID).isPresent());
    }
}
