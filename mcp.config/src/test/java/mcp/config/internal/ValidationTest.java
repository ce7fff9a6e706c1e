package mcp.config.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.HttpServerConfig;
import mcp.api.ServerConfig;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;
import org.junit.jupiter.api.Test;

/** Every SPEC §3 message, word for word, and the defaults. */
class ValidationTest {

    static final SourceMetadata SOURCE = new SourceMetadata("test", "Test", Optional.of(Path.of("/t/mcp.json")),
            SourceMetadata.Level.USER);

    @Test
    void bothCommandAndUrl() {
        assertErrors(entry("s").command("node").url("https://x"),
                "Server \"s\": both \"command\" and \"url\" are set - server should be either stdio (command) OR http/sse (url), not both");
        // The declared type does not add a second message: the one above says it all.
        assertErrors(entry("s").type("stdio").command("node").url("https://x"),
                "Server \"s\": both \"command\" and \"url\" are set - server should be either stdio (command) OR http/sse (url), not both");
        assertErrors(entry("s").type("http").command("node").url("https://x"),
                "Server \"s\": both \"command\" and \"url\" are set - server should be either stdio (command) OR http/sse (url), not both");
    }

    @Test
    void stdioWithoutCommand() {
        assertErrors(entry("s"), "Server \"s\": stdio server requires \"command\" field");
        assertErrors(entry("s").type("stdio"), "Server \"s\": stdio server requires \"command\" field");
        assertErrors(entry("s").type("stdio").url("https://x"), "Server \"s\": stdio server requires \"command\" field");
        assertErrors(entry("s").command("  "), "Server \"s\": stdio server requires \"command\" field");
    }

    @Test
    void httpAndSseWithoutUrl() {
        assertErrors(entry("s").type("http"), "Server \"s\": http server requires \"url\" field");
        assertErrors(entry("s").type("sse"), "Server \"s\": sse server requires \"url\" field");
        assertErrors(entry("s").type("sse").command("node"), "Server \"s\": sse server requires \"url\" field");
        assertErrors(entry("s").type("http").url(""), "Server \"s\": http server requires \"url\" field");
    }

    @Test
    void unknownType() {
        assertErrors(entry("s").type("websocket").url("ws://x"), "Server \"s\": unknown server type \"websocket\"");
        assertErrors(entry("s").type("streamable-http").url("https://x"),
                "Server \"s\": unknown server type \"streamable-http\"");
    }

    @Test
    void names() {
        assertErrors(entry("").command("node"), "Server name is empty");
        assertErrors(entry("has space").command("node"),
                "Server \"has space\": name may only contain letters, digits, '_', '.' and '-'");
        String longName = "n".repeat(101);
        assertErrors(entry(longName).command("node"),
                "Server \"nnnnnnnnnnnnnnnnnnnn...\": name is longer than 100 characters (101)");
        assertTrue(Validation.toConfig(entry("n".repeat(100)).command("node").build()).valid());
        assertTrue(Validation.toConfig(entry("a-b_c.d9").command("node").build()).valid());
    }

    @Test
    void timeout() {
        assertErrors(entry("s").command("node").timeout(0), "Server \"s\": \"timeout\" must be positive");
        assertErrors(entry("s").command("node").timeout(-5), "Server \"s\": \"timeout\" must be positive");
        assertEquals(Duration.ofMillis(1), Validation.toConfig(entry("s").command("node").timeout(1).build())
                .config().orElseThrow().timeout());
    }

    @Test
    void severalMessagesAreJoinedInRuleOrder() {
        Validation.Result result = Validation.toConfig(entry("bad name").type("ftp").timeout(0).build());
        assertEquals(List.of(
                "Server \"bad name\": name may only contain letters, digits, '_', '.' and '-'",
                "Server \"bad name\": unknown server type \"ftp\"",
                "Server \"bad name\": \"timeout\" must be positive"), result.errors());
        assertEquals(String.join("; ", result.errors()), result.joinedErrors());

        assertEquals("Server name is empty; "
                + "Server \"\": both \"command\" and \"url\" are set - server should be either stdio (command) OR http/sse (url), not both",
                Validation.toConfig(entry("").command("c").url("u").build()).joinedErrors());
    }

    @Test
    void defaultsAndKinds() {
        ServerConfig stdio = valid(entry("s").command("node").args("a", "b").env("K", "V").cwd("/w"));
        assertEquals(new StdioServerConfig("node", List.of("a", "b"), Map.of("K", "V"), Optional.of("/w"),
                ServerConfig.DEFAULT_TIMEOUT, true, Optional.empty(), Optional.empty(), List.of()), stdio);

        ServerConfig http = valid(entry("h").url("https://h").header("X", "1"));
        assertEquals(HttpServerConfig.of("https://h").withHeaders(Map.of("X", "1")), http);

        assertEquals(SseServerConfig.of("https://e"), valid(entry("e").type("sse").url("https://e")));
        assertEquals(HttpServerConfig.of("https://e"), valid(entry("e").type("HTTP").url("https://e")), "case forgiven");
        assertEquals("stdio", valid(entry("s").type(" ").command("node")).type(), "blank type counts as absent");

        // Headers of a stdio entry are ignored, and a disabled entry (when no filter dropped it) stays disabled.
        assertEquals(new StdioServerConfig("node", List.of(), Map.of(), Optional.empty(), ServerConfig.DEFAULT_TIMEOUT,
                false, Optional.empty(), Optional.empty(), List.of()),
                valid(entry("s").command("node").header("X", "1").enabled(false)));
    }

    private static ServerConfig valid(Entry entry) {
        Validation.Result result = Validation.toConfig(entry.build());
        assertTrue(result.valid(), result.errors().toString());
        assertTrue(result.errors().isEmpty());
        return result.config().orElseThrow();
    }

    private static void assertErrors(Entry entry, String... expected) {
        Validation.Result result = Validation.toConfig(entry.build());
        assertFalse(result.valid());
        assertEquals(List.of(expected), result.errors());
        assertEquals(String.join("; ", expected), result.joinedErrors());
    }

    static Entry entry(String name) {
        return new Entry(name);
    }

    /** A small builder of entries for the internal tests. */
    static final class Entry {
        final String name;
        Optional<String> type = Optional.empty();
        Optional<String> command = Optional.empty();
        List<String> args = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        Optional<String> cwd = Optional.empty();
        Optional<String> url = Optional.empty();
        Map<String, String> headers = new LinkedHashMap<>();
        Optional<Long> timeout = Optional.empty();
        Optional<Boolean> enabled = Optional.empty();
        SourceMetadata source = SOURCE;

        Entry(String name) {
            this.name = name;
        }

        Entry type(String v) {
            type = Optional.of(v);
            return this;
        }

        Entry command(String v) {
            command = Optional.of(v);
            return this;
        }

        Entry args(String... v) {
            args = List.of(v);
            return this;
        }

        Entry env(String k, String v) {
            env.put(k, v);
            return this;
        }

        Entry cwd(String v) {
            cwd = Optional.of(v);
            return this;
        }

        Entry url(String v) {
            url = Optional.of(v);
            return this;
        }

        Entry header(String k, String v) {
            headers.put(k, v);
            return this;
        }

        Entry timeout(long v) {
            timeout = Optional.of(v);
            return this;
        }

        Entry enabled(boolean v) {
            enabled = Optional.of(v);
            return this;
        }

        Entry level(SourceMetadata.Level level) {
            source = new SourceMetadata(source.providerId(), source.providerName(), source.path(), level);
            return this;
        }

        ServerSpec build() {
            // Value references on, as in mcp-host's own files: the configs the tests expect are made by the
            // configs' short constructors, which allow them.
            return ServerSpec.builder(name, source).location("/mcpServers/" + name).type(type).command(command)
                    .args(args).env(env).cwd(cwd).url(url).headers(headers).timeoutMillis(timeout).enabled(enabled)
                    .valueReferences(true).build();
        }
    }
}
