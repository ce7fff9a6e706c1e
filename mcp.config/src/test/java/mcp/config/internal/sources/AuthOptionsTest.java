package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keys of {@code auth} besides {@code type} and {@code credentialId} are the OAuth client's
 * options: scalars as text, anything else a problem at its pointer that skips the server.
 */
class AuthOptionsTest {

    private final NativeSource source = new NativeSource();

    @Test
    void furtherKeysAreOptionsAndScalarsCountAsText(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), "{\"mcpServers\": {\n"
                + "\"remote\": {\"url\": \"https://mcp.example.com/mcp\", \"auth\": {\"type\": \"oauth\",\n"
                + "  \"credentialId\": \"remote-cred\", \"clientId\": \"my-client\", \"clientSecret\": \"!pass show x\",\n"
                + "  \"scope\": \"read write\", \"callbackPort\": 8123, \"pkce\": true, \"ratio\": 1.5, \"unset\": null}},\n"
                + "\"plain\": {\"url\": \"https://mcp.example.com/mcp\", \"auth\": {\"type\": \"apikey\", \"credentialId\": \"k\"}}\n"
                + "}}");

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(Optional.of(new AuthRef("oauth", "remote-cred", Map.of("clientId", "my-client",
                "clientSecret", "!pass show x", "scope", "read write", "callbackPort", "8123", "pkce", "true",
                "ratio", "1.5"))), server(result, "remote").auth(), "null counts as absent");
        assertEquals(Optional.of(new AuthRef("apikey", "k", Map.of())), server(result, "plain").auth());
    }

    @Test
    void anOptionThatIsNoScalarIsAProblemAtItsPointer(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.home.resolve(".config/mcp-host/mcp.json"), "{\"mcpServers\": {\n"
                + "\"array\": {\"url\": \"http://x\", \"auth\": {\"type\": \"oauth\", \"credentialId\": \"c\", "
                + "\"scope\": [\"read\"]}},\n"
                + "\"object\": {\"url\": \"http://x\", \"auth\": {\"type\": \"oauth\", \"credentialId\": \"c\", "
                + "\"a/b\": {\"x\": 1}}},\n"
                + "\"ok\": {\"url\": \"http://x\", \"auth\": {\"type\": \"oauth\", \"credentialId\": \"c\", \"scope\": \"read\"}}\n"
                + "}}");

        Result result = source.discover(f.context());
        assertEquals(List.of(
                new Problem(file, "/mcpServers/array/auth/scope", "array",
                        "\"auth\" options must be strings, numbers or booleans, got an array for \"scope\""),
                new Problem(file, "/mcpServers/object/auth/a~1b", "object",
                        "\"auth\" options must be strings, numbers or booleans, got an object for \"a/b\"")),
                result.problems());
        assertEquals(List.of("ok"), names(result));
        assertEquals(Optional.of(new AuthRef("oauth", "c", Map.of("scope", "read"))), server(result, "ok").auth());
    }
}
