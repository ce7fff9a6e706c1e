package mcp.manager;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import mcp.api.StdioServerConfig;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.testkit.TestServers;

/** Starts testkit servers through the real stdio transport, found as a service like the host does. */
final class TestServerProcesses {

    private TestServerProcesses() {
    }

    static TransportProvider stdio() {
        return ServiceLoader.load(TransportProvider.class, TestServerProcesses.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get)
                .filter(provider -> provider.id().equals("stdio"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no stdio transport provider on the test path"));
    }

    static StdioServerConfig config(String... serverArgs) {
        List<String> command = TestServers.command(serverArgs);
        return StdioServerConfig.of(command.get(0), command.subList(1, command.size()));
    }

    static Transport open(String name, String... serverArgs) {
        return stdio().open(TransportRequest.of(name, config(serverArgs), Path.of("").toAbsolutePath()));
    }

    static McpClient connect(String name, ClientOptions.Builder options, String... serverArgs) {
        return McpClient.connectBlocking(open(name, serverArgs), options.build());
    }

    /** @return the methods the testkit server received so far, in order (its tool {@code received}, with --era) */
    static List<String> received(McpClient client) {
        mcp.api.ToolResult result = client.callToolBlocking("received", mcp.api.McpJson.object());
        tools.jackson.databind.JsonNode array = mcp.api.McpJson.mapper()
                .readTree(((mcp.api.Content.Text) result.content().get(0)).text());
        List<String> methods = new java.util.ArrayList<>();
        array.forEach(m -> methods.add(m.asString()));
        return methods;
    }

    static McpClient connect(String name, String... serverArgs) {
        return connect(name, ClientOptions.builder(name), serverArgs);
    }

    /** Fails if a child process of this JVM is still alive a little after every close. */
    static void assertNoChildProcessLeft() throws InterruptedException {
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (true) {
            List<ProcessHandle> alive = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
            if (alive.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                alive.forEach(ProcessHandle::destroyForcibly);
                fail("processes left behind: " + alive.stream().map(p -> p.pid() + " " + p.info().command().orElse("?"))
                        .toList());
            }
            Thread.sleep(50);
        }
    }

    static void assertDeadSoon(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            if (System.nanoTime() > deadline) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                fail("process " + pid + " is still alive");
            }
            Thread.sleep(50);
        }
    }
}
