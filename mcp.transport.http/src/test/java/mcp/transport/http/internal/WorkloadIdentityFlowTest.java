package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.transport.http.HttpTransports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code workload_identity} grant (SEP-1933, RFC 7523 JWT bearer) against a loopback authorization server
 * that takes only that grant and an MCP server that takes only its tokens: the workload's token is read from
 * {@code assertionFile} for every token request (a rotated token is used once the old access token is refused),
 * and a refusal is reported with no second token request and no other grant.
 */
class WorkloadIdentityFlowTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

    @TempDir
    Path temp;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<Map<String, String>> tokenRequests = new CopyOnWriteArrayList<>();
    private final Set<String> valid = ConcurrentHashMap.newKeySet();
    private volatile String refusal;
    private TestHttpServer as;
    private TestHttpServer rs;

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private void start() throws Exception {
        as = TestHttpServer.start(this::authorizationServer);
        resources.add(as);
        McpStub mcp = new McpStub();
        rs = TestHttpServer.start(call -> resourceServer(call, mcp));
        resources.add(rs);
    }

    private McpClient connect(Map<String, String> options) {
        HttpServerConfig config = new HttpServerConfig(rs.url("/mcp"), Map.of(), TIMEOUT, true,
                Optional.of(new ServerConfig.AuthRef("oauth", "workload", options)), Optional.empty(), List.of());
        McpClient client = McpClient.connectBlocking(HttpTransports.httpProvider().open(
                TransportRequest.of("workload", config, temp).withAuth(AuthServices.storedOnly(AuthStorage.inMemory()))),
                ClientOptions.builder("wif-test").protocolVersion("2025-11-25").initializeTimeout(TIMEOUT)
                        .requestTimeout(TIMEOUT).build());
        resources.add(client);
        return client;
    }

    @Test
    void theWorkloadTokenIsReadForEveryGrantAndNoUserIsNeeded() throws Exception {
        start();
        Path file = temp.resolve("token");
        Files.writeString(file, "eyJ.workload-token-1.sig\n");
        McpClient client = connect(Map.of("grant", "workload_identity", "assertionFile", file.toString(),
                "clientId", "workload-client"));
        assertFalse(client.callToolBlocking("echo", McpJson.object().put("message", "one")).isError());
        // The platform rotates the token; the MCP server stops taking the access token.
        Files.writeString(file, "eyJ.workload-token-2.sig");
        valid.clear();
        assertFalse(client.callToolBlocking("echo", McpJson.object().put("message", "two")).isError());
        assertEquals(2, tokenRequests.size());
        assertEquals("eyJ.workload-token-1.sig", tokenRequests.get(0).get("assertion"));
        assertEquals("eyJ.workload-token-2.sig", tokenRequests.get(1).get("assertion"));
        for (Map<String, String> form : tokenRequests) {
            assertEquals(GRANT, form.get("grant_type"));
            assertEquals("workload-client", form.get("client_id"));
            assertEquals(rs.url("/mcp"), form.get("resource"));
        }
    }

    @Test
    void aRefusedAssertionIsReportedWithoutRetryOrAnotherGrant() throws Exception {
        start();
        refusal = "invalid_grant";
        McpException e = assertThrows(McpException.class, () -> connect(Map.of("grant", "workload_identity",
                "assertion", "eyJ.expired.sig")));
        assertTrue(e.getMessage().contains("invalid_grant"), e.getMessage());
        assertFalse(e.getMessage().contains("eyJ.expired.sig"), "the assertion is not in the message");
        assertEquals(1, tokenRequests.size());
        assertEquals(GRANT, tokenRequests.get(0).get("grant_type"));
        assertFalse(tokenRequests.get(0).containsKey("client_id"), "no client id was configured");
    }

    @Test
    void withoutAnAssertionTheMessageSaysWhatToSet() throws Exception {
        start();
        McpException e = assertThrows(McpException.class, () -> connect(Map.of("grant", "workload_identity")));
        assertTrue(e.getMessage().contains("assertionFile") && e.getMessage().contains("assertion"), e.getMessage());
        assertEquals(0, tokenRequests.size());
    }

    private void authorizationServer(TestHttpServer.Call call) throws Exception {
        switch (call.request.path()) {
            case "/.well-known/oauth-authorization-server" -> {
                ObjectNode metadata = McpJson.object().put("issuer", as.url(""))
                        .put("authorization_endpoint", as.url("/authorize")).put("token_endpoint", as.url("/token"));
                metadata.putArray("grant_types_supported").add(GRANT);
                metadata.putArray("token_endpoint_auth_methods_supported").add("none");
                call.json(metadata.toString());
            }
            case "/token" -> {
                Map<String, String> form = form(call.request.text());
                tokenRequests.add(form);
                if (!GRANT.equals(form.get("grant_type")) || refusal != null) {
                    call.json(400, McpJson.object().put("error", refusal == null ? "unsupported_grant_type" : refusal)
                            .put("error_description", "refused: " + form.get("assertion")).toString(), Map.of());
                    return;
                }
                String token = "wif-at-" + java.util.UUID.randomUUID();
                valid.add(token);
                call.json(McpJson.object().put("access_token", token).put("token_type", "Bearer")
                        .put("expires_in", 3600).toString());
            }
            default -> call.status(404);
        }
    }

    private void resourceServer(TestHttpServer.Call call, McpStub mcp) throws Exception {
        if (call.request.path().startsWith("/.well-known/oauth-protected-resource")) {
            ObjectNode prm = McpJson.object().put("resource", rs.url("/mcp"));
            prm.putArray("authorization_servers").add(as.url(""));
            call.json(prm.toString());
            return;
        }
        String authorization = call.header("Authorization");
        if (authorization == null || !authorization.startsWith("Bearer ")
                || !valid.contains(authorization.substring(7))) {
            call.status(401, "", Map.of("WWW-Authenticate", "Bearer resource_metadata=\""
                    + rs.url("/.well-known/oauth-protected-resource/mcp") + "\""));
            return;
        }
        mcp.handle(call);
    }

    private static Map<String, String> form(String text) {
        Map<String, String> out = new HashMap<>();
        for (String pair : text.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }
}
