package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthStorage;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code auth login|logout|status} against an in-memory credential store. */
class AuthCommandTest {

    private static final String ACCESS_TOKEN = "at-SECRET-1";
    private static final String REFRESH_TOKEN = "rt-SECRET-2";
    private static final String CLIENT_SECRET = "cs-SECRET-3";

    @TempDir
    Path temp;

    private Path config;
    private CliRunner cli;
    private final MemoryStorage storage = new MemoryStorage();
    private HttpStub stub;

    @BeforeEach
    void fixture() throws IOException {
        stub = new HttpStub();
        Path home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        config = temp.resolve("servers.json");
        ObjectNode servers = McpJson.object();
        servers.set("remote", remote(stub.url(), null));
        servers.set("other", remote("http://127.0.0.1:9/mcp", "shared"));
        servers.set("also", remote("http://127.0.0.1:9/mcp", "shared"));
        ObjectNode kit = McpJson.object();
        List<String> command = TestServers.command();
        kit.put("command", command.get(0));
        ArrayNode args = kit.putArray("args");
        command.subList(1, command.size()).forEach(args::add);
        servers.set("kit", kit);
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(config, root.toString());
        cli = new CliRunner(project, home).authStorage(storage);
    }

    @AfterEach
    void stop() throws InterruptedException, IOException {
        stub.close();
        CliRunner.assertNoChildProcessLeft();
    }

    private static ObjectNode remote(String url, String credentialId) {
        ObjectNode entry = McpJson.object();
        entry.put("type", "http");
        entry.put("url", url);
        if (credentialId != null) {
            ObjectNode auth = entry.putObject("auth");
            auth.put("type", "oauth");
            auth.put("credentialId", credentialId);
        }
        return entry;
    }

    private CliRunner.Result run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--config", config.toString(), "--no-cache"));
        return cli.run(all.toArray(String[]::new));
    }

    private static StoredCredential credential(Optional<Instant> expiresAt, boolean refresh, List<String> scopes,
            Map<String, String> attributes) {
        return new StoredCredential(ACCESS_TOKEN, "Bearer", refresh ? Optional.of(REFRESH_TOKEN) : Optional.empty(),
                expiresAt, scopes, Instant.now().minusSeconds(60), attributes);
    }

    private void storeThree() {
        storage.save("remote", credential(Optional.of(Instant.now().plusSeconds(52 * 60 + 30)), true,
                List.of("read", "write"), Map.of(StoredCredential.ISSUER, "https://as.example",
                        StoredCredential.CLIENT_ID, "client-1", StoredCredential.CLIENT_SECRET, CLIENT_SECRET)));
        storage.save("shared", credential(Optional.of(Instant.now().minusSeconds(10)), false, List.of(), Map.of()));
        storage.save("orphan", credential(Optional.empty(), false, List.of("x"), Map.of()));
    }

    private static void assertNoSecret(CliRunner.Result result) {
        for (String secret : List.of(ACCESS_TOKEN, REFRESH_TOKEN, CLIENT_SECRET)) {
            assertFalse(result.out().contains(secret) || result.err().contains(secret), "a secret was shown: " + result);
        }
    }

    @Test
    void statusShowsEveryCredentialWithItsServersAndNoSecret() {
        storeThree();
        CliRunner.Result result = run("auth", "status");
        assertEquals(0, result.exitCode(), result::toString);
        assertNoSecret(result);
        List<String> lines = result.out().lines().toList();
        assertEquals(4, lines.size(), result::toString);
        assertTrue(lines.get(0).matches("CREDENTIAL +SERVERS +SCOPES +EXPIRES +REFRESH +ISSUER"), lines.get(0));
        // Sorted by credential id, as the store lists them.
        assertTrue(lines.get(1).matches("orphan +- +x +unknown +no +-"), lines.get(1));
        assertTrue(lines.get(2).matches("remote +remote +read write +in 52 min +yes +https://as\\.example"), lines.get(2));
        assertTrue(lines.get(3).matches("shared +(other, also|also, other) +- +expired +no +-"), lines.get(3));
        int expires = lines.get(0).indexOf("EXPIRES");
        assertTrue(lines.stream().skip(1).allMatch(line -> line.charAt(expires - 1) == ' '
                && line.charAt(expires) != ' '), "aligned columns:\n" + result.out());
    }

    @Test
    void statusJsonHasTheFieldsAndNoSecret() {
        storeThree();
        CliRunner.Result result = run("auth", "status", "--json");
        assertEquals(0, result.exitCode(), result::toString);
        assertNoSecret(result);
        JsonNode document = result.json();
        assertEquals(3, document.size(), result::toString);
        JsonNode remote = document.get(1);
        assertEquals("remote", remote.get("credentialId").asString());
        assertEquals("remote", remote.at("/servers/0").asString());
        assertEquals("read", remote.at("/scopes/0").asString());
        assertEquals("in 52 min", remote.get("expires").asString());
        assertFalse(remote.get("expired").asBoolean());
        assertTrue(remote.get("refreshToken").asBoolean());
        assertEquals("https://as.example", remote.get("issuer").asString());
        assertTrue(Instant.parse(remote.get("expiresAt").asString()).isAfter(Instant.now()));
        JsonNode shared = document.get(2);
        assertTrue(shared.get("expired").asBoolean());
        assertEquals(2, shared.get("servers").size());
        assertTrue(document.get(0).get("expiresAt").isNull());
    }

    @Test
    void statusWithNothingStoredSaysHowToLogIn() {
        CliRunner.Result result = run("auth", "status");
        assertEquals(0, result.exitCode(), result::toString);
        assertEquals("No stored credentials. Log in with: mcp-host auth login NAME", result.out().strip());
        CliRunner.Result json = run("auth", "status", "--json");
        assertEquals(0, json.exitCode(), json::toString);
        assertEquals(0, json.json().size(), json::toString);
    }

    @Test
    void statusShowsAnUnreadableCredentialAndCarriesOn() {
        storeThree();
        storage.broken = "remote";
        CliRunner.Result result = run("auth", "status");
        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.out().lines().anyMatch(l -> l.matches("remote +remote +error: credential file .* is corrupt")),
                result::toString);
        assertTrue(result.out().lines().anyMatch(l -> l.startsWith("shared ")), result::toString);
    }

    @Test
    void logoutDeletesTheCredentialOfTheServerAndSaysWhetherThereWasOne() {
        storeThree();
        CliRunner.Result first = run("auth", "logout", "remote");
        assertEquals(0, first.exitCode(), first::toString);
        assertEquals("Logged out of remote: deleted the stored credential \"remote\".", first.out().strip());
        assertFalse(storage.credentials.containsKey("remote"));

        CliRunner.Result again = run("auth", "logout", "remote");
        assertEquals(0, again.exitCode(), again::toString);
        assertEquals("No stored credential for remote (credential id \"remote\"): nothing to delete.", again.out().strip());

        // A server with auth.credentialId: its credential goes, under that id.
        CliRunner.Result other = run("auth", "logout", "other", "--json");
        assertEquals(0, other.exitCode(), other::toString);
        JsonNode document = other.json();
        assertEquals("shared", document.get("credentialId").asString());
        assertTrue(document.get("deleted").asBoolean());
        assertFalse(storage.credentials.containsKey("shared"));

        // Not a server: a credential id.
        CliRunner.Result orphan = run("auth", "logout", "orphan");
        assertEquals(0, orphan.exitCode(), orphan::toString);
        assertTrue(orphan.out().contains("deleted"), orphan::toString);
        assertTrue(storage.credentials.isEmpty());
    }

    @Test
    void loginRefusesUnknownAndNonHttpServers() {
        CliRunner.Result unknown = run("auth", "login", "remot");
        assertEquals(2, unknown.exitCode(), unknown::toString);
        assertTrue(unknown.err().contains("No MCP server named \"remot\"") && unknown.err().contains("remote"),
                unknown::toString);

        CliRunner.Result stdio = run("auth", "login", "kit");
        assertEquals(2, stdio.exitCode(), stdio::toString);
        assertTrue(stdio.err().contains("is a stdio server; auth login works with http and sse servers"), stdio::toString);
    }

    @Test
    void loginConnectsListsTheToolsAndReportsWhatWasStored() {
        CliRunner.Result open = run("auth", "login", "remote", "--headless");
        assertEquals(0, open.exitCode(), open::toString);
        assertEquals("Logged in to remote (1 tool)", open.out().lines().findFirst().orElse(""), open::toString);
        assertTrue(open.out().contains("asked for no authorization"), open::toString);

        // What the OAuth client of the transport would have left in the store.
        storage.save("remote", credential(Optional.of(Instant.now().plusSeconds(3600 + 30)), true, List.of("mcp"),
                Map.of(StoredCredential.ISSUER, "https://as.example", StoredCredential.CLIENT_SECRET, CLIENT_SECRET)));
        CliRunner.Result stored = run("auth", "login", "remote", "--headless");
        assertEquals(0, stored.exitCode(), stored::toString);
        assertNoSecret(stored);
        assertEquals(List.of("Logged in to remote (1 tool)", "  credential: remote", "  scopes: mcp",
                "  expires: in 60 min", "  refresh token: yes", "  issuer: https://as.example"),
                stored.out().lines().toList());

        CliRunner.Result json = run("auth", "login", "remote", "--headless", "--json");
        assertEquals(0, json.exitCode(), json::toString);
        assertNoSecret(json);
        assertEquals(1, json.json().get("tools").asInt());
        assertTrue(json.json().get("stored").asBoolean());
    }

    @Test
    void loginFailureExitsOneWithTheReason() throws IOException {
        stub.close();
        CliRunner.Result result = run("auth", "login", "remote", "--headless", "--timeout", "5000");
        assertEquals(1, result.exitCode(), result::toString);
        assertTrue(result.err().startsWith("mcp-host: Login to remote failed: "), result::toString);
    }

    @Test
    void authAloneIsAUsageError() {
        CliRunner.Result result = run("auth");
        assertEquals(2, result.exitCode(), result::toString);
        assertTrue(result.err().contains("login") && result.err().contains("logout") && result.err().contains("status"),
                result::toString);
    }

    /** A trivial credential store; {@link #broken} names an id whose load fails as a corrupt file would. */
    static final class MemoryStorage implements AuthStorage {
        final Map<String, StoredCredential> credentials = new ConcurrentSkipListMap<>();
        volatile String broken;

        @Override
        public String id() {
            return "memory";
        }

        @Override
        public Optional<StoredCredential> load(String credentialId) {
            if (credentialId.equals(broken)) {
                throw new McpException("credential file /tmp/x/" + credentialId + ".json is corrupt");
            }
            return Optional.ofNullable(credentials.get(credentialId));
        }

        @Override
        public void save(String credentialId, StoredCredential credential) {
            credentials.put(credentialId, credential);
        }

        @Override
        public boolean delete(String credentialId) {
            return credentials.remove(credentialId) != null;
        }

        @Override
        public List<String> credentialIds() {
            return List.copyOf(credentials.keySet());
        }
    }

    /**
     * A Streamable HTTP MCP server that needs no authorization, on a plain socket (HTTP/1.1, JSON
     * replies): initialize, tools/list with one tool, 202 for notifications, 405 for GET.
     */
    static final class HttpStub implements AutoCloseable {
        private final ServerSocket socket;
        private final Thread acceptor;

        HttpStub() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
            acceptor = new Thread(this::accept, "test-mcp-http-stub");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort() + "/mcp";
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    Thread thread = new Thread(() -> serve(connection), "test-mcp-http-stub-connection");
                    thread.setDaemon(true);
                    thread.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void serve(Socket connection) {
            try (connection; InputStream in = new BufferedInputStream(connection.getInputStream());
                    OutputStream out = connection.getOutputStream()) {
                while (true) {
                    String head = readHead(in);
                    if (head == null) {
                        return;
                    }
                    String method = head.substring(0, head.indexOf(' '));
                    int length = 0;
                    for (String line : head.split("\r\n")) {
                        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                            length = Integer.parseInt(line.substring(15).trim());
                        }
                    }
                    byte[] body = in.readNBytes(length);
                    if (!method.equals("POST")) {
                        respond(out, method.equals("DELETE") ? 200 : 405, null);
                        continue;
                    }
                    JsonNode message = McpJson.mapper().readTree(body);
                    if (!message.has("id")) {
                        respond(out, 202, null);
                        continue;
                    }
                    ObjectNode reply = McpJson.object();
                    reply.put("jsonrpc", "2.0");
                    reply.set("id", message.get("id"));
                    switch (message.get("method").asString()) {
                        case "initialize" -> {
                            ObjectNode result = reply.putObject("result");
                            result.put("protocolVersion", message.at("/params/protocolVersion").asString());
                            result.putObject("capabilities").putObject("tools");
                            result.putObject("serverInfo").put("name", "stub").put("version", "1");
                        }
                        case "tools/list" -> {
                            ObjectNode tool = reply.putObject("result").putArray("tools").addObject();
                            tool.put("name", "hello");
                            tool.putObject("inputSchema").put("type", "object");
                        }
                        default -> reply.putObject("error").put("code", -32601).put("message", "no such method");
                    }
                    respond(out, 200, reply.toString());
                }
            } catch (IOException | RuntimeException e) {
                // The client went away.
            }
        }

        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                head.write(b);
                matched = (b == '\r' || b == '\n') && "\r\n\r\n".charAt(matched) == b ? matched + 1 : 0;
            }
            return head.toString(StandardCharsets.ISO_8859_1);
        }

        private static void respond(OutputStream out, int status, String json) throws IOException {
            byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
            String head = "HTTP/1.1 " + status + " X\r\n" + (json == null ? "" : "Content-Type: application/json\r\n")
                    + "Content-Length: " + body.length + "\r\n\r\n";
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
