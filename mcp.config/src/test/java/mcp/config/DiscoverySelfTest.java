package mcp.config;

import static mcp.config.Fixtures.discovery;
import static mcp.config.Fixtures.meta;
import static mcp.config.Fixtures.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.SourceMetadata.Level;
import mcp.config.Fixtures.FixedSource;
import mcp.config.SkippedServer.Reason;
import org.junit.jupiter.api.Test;

/**
 * An agent's config that runs mcp-host's own gateway, in the shapes people write: mcp-host never starts it as one
 * of its servers, whatever wraps it, and says why; look-alikes are kept.
 */
class DiscoverySelfTest {

    private static final SourceMetadata CLAUDE = meta("claude-code", Level.USER);

    private static ServerSpec command(String name, String command, String... args) {
        return spec(name, CLAUDE).command(command).args(args).build();
    }

    @Test
    void theGatewayIsRecognisedDirectlyAndThroughWrappers() {
        List<ServerSpec> gateways = List.of(
                command("plain", "mcp-host", "serve", "--stdio"),
                command("path", "/opt/mcp-host/bin/mcp-host", "serve"),
                command("checkout", "/home/u/src/mcp-host/mcp-host", "--config", "/x.json", "serve", "--stdio"),
                command("npx", "npx", "-y", "mcp-host@0.1.0", "serve", "--stdio"),
                command("env", "env", "MCP_HOST_JAVA_OPTS=-Xmx256m", "mcp-host", "serve"),
                command("sh", "sh", "-c", "exec mcp-host serve --stdio 2>/dev/null"),
                command("bash", "/bin/bash", "-lc", "cd ~/work && '/opt/mcp host/bin/mcp-host' serve"),
                command("java", "/opt/mcp-host/bin/java", "-m", "mcp.cli/mcp.cli.Main", "serve", "--stdio"),
                command("windows", "cmd", "/c", "mcp-host.cmd serve --stdio"));
        List<ServerSpec> others = List.of(
                command("shell", "mcp-host", "shell"),
                command("serve-other", "npx", "-y", "serve", "./site"),
                command("look-alike", "mcp-host-proxy", "serve"),
                command("words", "sh", "-c", "echo mcp-host; echo serve-later"),
                spec("remote", CLAUDE).url("http://127.0.0.1:8931/mcp").build());
        List<ServerSpec> all = new java.util.ArrayList<>(gateways);
        all.addAll(others);

        DiscoveryResult result = discovery(new FixedSource("claude-code", 10, all)).build().discover();

        assertEquals(others.stream().map(ServerSpec::name).toList(), List.copyOf(result.configs().keySet()));
        assertEquals(gateways.stream().map(ServerSpec::name).toList(),
                result.skipped().stream().map(SkippedServer::name).toList());
        for (SkippedServer skipped : result.skipped()) {
            assertEquals(Reason.SELF, skipped.reason(), skipped.toString());
            assertTrue(skipped.detail().contains("mcp-host never connects to itself"), skipped.detail());
        }
    }

    @Test
    void aSkippedGatewayHidesNoServerOfItsName() {
        ServerSpec gateway = command("tools", "mcp-host", "serve");
        ServerSpec real = spec("tools", meta("codex", Level.USER)).command("npx").args("tools-server").build();

        DiscoveryResult result = discovery(new FixedSource("claude-code", 20, List.of(gateway)),
                new FixedSource("codex", 10, List.of(real))).build().discover();

        assertEquals(List.of("npx"), List.of(((mcp.api.StdioServerConfig) result.configs().get("tools")).command()));
    }
}
