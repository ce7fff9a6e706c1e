package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.manager.BridgedTool;
import mcp.manager.McpClient;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * A server nobody on this team wrote, in a sandbox: the reference {@code server-filesystem}, run with {@code node}
 * from {@code interop/node_modules} under bubblewrap through the packaged host. Its own checks allow the whole
 * temporary folder; the sandbox lets it write one subfolder, and read neither a denied folder nor the network. Its
 * tools keep working where the sandbox allows, and the same calls to the same server without a sandbox succeed
 * where it refuses. Skipped only where bubblewrap is not installed ({@code .ci/run} installs it).
 */
class SandboxIT {

    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();

    @TempDir
    Path temp;

    @BeforeAll
    static void bubblewrapIsInstalled() {
        Assumptions.assumeTrue(Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(entry -> !entry.isEmpty() && Files.isExecutable(Path.of(entry, "bwrap"))),
                "bubblewrap (bwrap) is not installed; .ci/run installs it");
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a server process outlived the host: " + ProcessHandle.current()
                        .descendants().map(p -> p.info().commandLine().orElse("?")).toList());
            }
            Thread.sleep(50);
        }
    }

    private static ToolOutput call(LoadResult load, String server, String tool, ObjectNode arguments) {
        BridgedTool bridged = load.tools().stream()
                .filter(t -> t.serverName().equals(server) && t.toolName().equals(tool)).findFirst()
                .orElseThrow(() -> new AssertionError(server + "/" + tool + " not among " + load.tools()));
        return McpClient.await(bridged.call(arguments));
    }

    @Test
    void theFilesystemServerWorksInItsSandboxAndCannotLeaveIt() throws Exception {
        Path script = INTEROP.resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
        assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh (mvn verify runs it)");
        Path allowed = Files.createDirectories(temp.resolve("allowed"));
        Path secrets = Files.createDirectories(temp.resolve("secrets"));
        Files.writeString(secrets.resolve("key.txt"), "top-secret");
        Files.writeString(allowed.resolve("notes.txt"), "line one\n");

        ObjectNode root = McpJson.object();
        ObjectNode servers = root.putObject("mcpServers");
        for (String name : List.of("boxed", "free")) {
            ObjectNode server = servers.putObject(name);
            server.put("command", "node");
            server.putArray("args").add(script.toString()).add(temp.toString());
        }
        ((ObjectNode) servers.get("boxed")).set("sandbox", McpJson.mapper().readTree("{\"filesystem\": {\"allowWrite\": [\""
                + allowed + "\"], \"denyRead\": [\"" + secrets + "\"]}}"));
        Path config = Files.writeString(temp.resolve("mcp.json"), root.toString());

        try (McpHost host = McpHost.builder().configFile(config).home(temp).workingDirectory(temp).cache(false)
                .toolPinning(false).serverLogsToFiles(false).build()) {
            LoadResult load = host.load();
            assertEquals(Map.of(), load.errors());

            ToolOutput listing = call(load, "boxed", "list_directory", McpJson.object().put("path", allowed.toString()));
            assertTrue(listing.text().contains("[FILE] notes.txt"), listing.text());
            ToolOutput inside = call(load, "boxed", "write_file", McpJson.object()
                    .put("path", allowed.resolve("made.txt").toString()).put("content", "written inside"));
            assertFalse(inside.isError(), inside.text());
            assertEquals("written inside", Files.readString(allowed.resolve("made.txt")));

            // Inside the server's own allowed directory, outside the sandbox's: the sandbox refuses it.
            ToolOutput outside = call(load, "boxed", "write_file", McpJson.object()
                    .put("path", temp.resolve("outside.txt").toString()).put("content", "escaped"));
            assertTrue(outside.isError() && outside.text().contains("EROFS"), outside.text());
            assertFalse(Files.exists(temp.resolve("outside.txt")));
            ToolOutput secret = call(load, "boxed", "read_text_file", McpJson.object()
                    .put("path", secrets.resolve("key.txt").toString()));
            assertTrue(secret.isError() && !secret.text().contains("top-secret"), secret.text());

            // The same server unsandboxed does both: the refusals were the sandbox's, not the server's.
            assertFalse(call(load, "free", "write_file", McpJson.object()
                    .put("path", temp.resolve("outside.txt").toString()).put("content", "escaped")).isError());
            assertTrue(Files.exists(temp.resolve("outside.txt")));
            assertEquals("top-secret", call(load, "free", "read_text_file", McpJson.object()
                    .put("path", secrets.resolve("key.txt").toString())).text());
        }
    }
}
