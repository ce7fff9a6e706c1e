package mcp.testkit;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Builds the command line that starts {@link TestServer} as a child process with the current JVM.
 *
 * <p>The class path is made of the code-source locations (jar or classes directory) of the test
 * server and of Jackson, so it works the same whether the calling tests run on the class path or
 * on the module path, and without packaging anything first:
 *
 * <pre>{@code
 * Process p = new ProcessBuilder(TestServers.command("--tools", "100")).start();
 * }</pre>
 */
public final class TestServers {

    /** Options for a fast start: the server is short-lived, so C1 alone and the serial GC suffice. */
    private static final List<String> JVM_OPTIONS =
            List.of("-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k");

    private TestServers() {
    }

    /**
     * The full command line: java executable, JVM options, {@code -cp}, the main class, then the server's options.
     *
     * @param serverArgs options of {@link TestServer}, e.g. {@code "--fault", "garbage-stdout"}
     * @return a new mutable list
     */
    public static List<String> command(String... serverArgs) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(JVM_OPTIONS);
        command.add("-cp");
        command.add(classPath());
        command.add(TestServer.class.getName());
        command.addAll(List.of(serverArgs));
        return command;
    }

    /**
     * The java executable of the running JVM, so the server runs on the same Java as the tests.
     *
     * @return an absolute path
     */
    public static String javaExecutable() {
        String fallback = Path.of(System.getProperty("java.home"), "bin",
                File.separatorChar == '\\' ? "java.exe" : "java").toString();
        // The process's own command is the best answer, unless the JVM was started by another launcher.
        return ProcessHandle.current().info().command()
                .filter(c -> Path.of(c).getFileName().toString().startsWith("java"))
                .orElse(fallback);
    }

    private static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        entries.add(location(TestServer.class));
        entries.add(location(tools.jackson.databind.JsonNode.class));
        entries.add(location(tools.jackson.core.JsonParser.class));
        entries.add(location(com.fasterxml.jackson.annotation.JsonProperty.class));
        return String.join(File.pathSeparator, entries);
    }

    private static String location(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            throw new IllegalStateException("no code source for " + type.getName());
        }
        try {
            return Path.of(source.getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("bad code source for " + type.getName() + ": " + source.getLocation(), e);
        }
    }
}
