package mcp.testkit;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.CodeSource;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
        List<String> command = java(classPath(), TestServer.class, serverArgs);
        Path archive = Boolean.getBoolean(CLASS_ARCHIVE_PROPERTY) ? ClassArchive.PATH : null;
        if (archive != null) {
            // -Xlog:disable: a warning about the archive would go to stdout, which is the protocol's.
            command.addAll(1, List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:disable"));
        }
        return command;
    }

    /**
     * The system property that, set to {@code true}, lets {@link #command} start the server from a class archive of
     * its own: the build sets it for every test run; a bench, which makes its own archives, does not.
     */
    public static final String CLASS_ARCHIVE_PROPERTY = "mcp.testkit.classArchive";

    /**
     * A class archive of the test server's own classes and Jackson's, made once per class path (by a first server that
     * answers a few requests and writes it as it exits) in the temporary directory: the tests start thousands of
     * servers, and each starts a quarter sooner from it. None when it cannot be made; the JVM ignores one that no
     * longer matches its jars, and the name changes with them.
     */
    private static final class ClassArchive {

        static final Path PATH = make();

        private static Path make() {
            try {
                String classPath = classPath();
                String java = javaExecutable();
                StringBuilder key = new StringBuilder(java).append('\n').append(System.getProperty("java.vm.version"));
                for (String entry : classPath.split(File.pathSeparator)) {
                    Path path = Path.of(entry);
                    key.append('\n').append(entry).append(' ').append(Files.getLastModifiedTime(path).toMillis())
                            .append(' ').append(Files.isRegularFile(path) ? Files.size(path) : -1);
                }
                String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.toString()
                        .getBytes(StandardCharsets.UTF_8))).substring(0, 16);
                Path directory = Path.of(System.getProperty("java.io.tmpdir"));
                Path archive = directory.resolve("mcp-testkit-" + hash + ".jsa");
                if (Files.isRegularFile(archive)) {
                    return archive;
                }
                Path partial = directory.resolve("mcp-testkit-" + hash + "-" + ProcessHandle.current().pid() + "-"
                        + System.nanoTime() + ".partial");
                List<String> dump = new ArrayList<>(List.of(java, "-XX:ArchiveClassesAtExit=" + partial,
                        "-Xlog:disable"));
                dump.addAll(JVM_OPTIONS);
                dump.addAll(List.of("-cp", classPath, TestServer.class.getName()));
                Process process = new ProcessBuilder(dump).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                try (OutputStream in = process.getOutputStream()) {
                    in.write(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                            + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"archive\","
                            + "\"version\":\"1\"}}}\n"
                            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                            + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
                            + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                            + "\"arguments\":{\"message\":\"hi\"}}}\n").getBytes(StandardCharsets.UTF_8));
                }
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
                if (process.isAlive() || process.exitValue() != 0 || !Files.isRegularFile(partial)
                        || Files.size(partial) == 0) {
                    Files.deleteIfExists(partial);
                    return null;
                }
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return archive;
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
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
