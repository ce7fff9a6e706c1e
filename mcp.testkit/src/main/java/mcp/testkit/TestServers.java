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
 * Builds the command lines that start {@link TestServer} and {@link ConformanceServer} as child processes with the
 * current JVM.
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
        return java(classPath(), TestServer.class, serverArgs);
    }

    /**
     * The command line that starts {@link ConformanceServer}, the conformance suite's fixture (over stdio unless the
     * arguments say {@code --http PORT}).
     *
     * @param serverArgs options of {@link ConformanceServer}
     * @return a new mutable list
     */
    public static List<String> conformance(String... serverArgs) {
        return java(conformanceClassPath(), ConformanceServer.class, serverArgs);
    }

    private static List<String> java(String classPath, Class<?> main, String... args) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(JVM_OPTIONS);
        command.add("-cp");
        command.add(classPath);
        command.add(main.getName());
        command.addAll(List.of(args));
        return command;
    }

    /**
     * The fixture is written on mcp.server, so it needs mcp-host's server modules, Jetty and SLF4J beside Jackson.
     * The classes are found by name: this module does not read Jetty's.
     */
    private static String conformanceClassPath() {
        Set<String> entries = new LinkedHashSet<>(List.of(classPath().split(File.pathSeparator)));
        for (String name : List.of("mcp.server.McpServer", "mcp.protocol.ProtocolVersions", "mcp.api.McpJson",
                "org.slf4j.Logger", "org.eclipse.jetty.server.Server", "org.eclipse.jetty.http.HttpField",
                "org.eclipse.jetty.io.Content", "org.eclipse.jetty.util.Callback")) {
            try {
                entries.add(location(Class.forName(name, false, TestServers.class.getClassLoader())));
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("the conformance fixture needs " + name + " on the path", e);
            }
        }
        return String.join(File.pathSeparator, entries);
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
