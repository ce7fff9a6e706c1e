package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples, as a user meets them: built outside the reactor from mcp-host's installed artifacts only (the
 * invoker plugin, see pom.xml), then run. The embedding app opens a session on the official server-everything and
 * calls a tool, with nothing on stdout but its own lines; the third-party capability source shows its servers in
 * {@code mcp-host list} through the plugin folder and {@code --plugin-path}; and a jlink image of the app and the
 * plugin, built with the command the examples' README gives, runs and calls a tool. The LangChain4j agent runs on the
 * class path, as LangChain4j requires, and answers from a tool of server-everything.
 */
class ExamplesIT {

    private static final Path EXAMPLES = Path.of(System.getProperty("mcp.examples.dir", "target/examples"))
            .toAbsolutePath().normalize();
    private static final Path EMBED = EXAMPLES.resolve("embed/target");
    private static final Path EMBED_JAR = EMBED.resolve("mcp-example-embed-1.0.0.jar");
    private static final Path PLUGIN_JAR = EXAMPLES.resolve("env-source/target/mcp-example-env-source-1.0.0.jar");
    private static final Path EVERYTHING = Path.of(System.getProperty("mcp.interop.dir", "../interop"))
            .resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js").toAbsolutePath();
    private static final String MAIN = "com.example.mcp.embed/com.example.mcp.embed.Main";
    private static final Path LANGCHAIN4J = EXAMPLES.resolve("langchain4j/target");
    private static final Path LANGCHAIN4J_SOURCES = Path.of("../examples/langchain4j/src/main/java/com/example/mcp/langchain4j");
    private static final Path SPRING_AI = EXAMPLES.resolve("spring-ai/target");
    private static final List<String> SUM = List.of("mcp_everything_get_sum", "{\"a\": 2, \"b\": 40}");

    @TempDir
    Path home;

    private static String java(String tool) {
        return Path.of(System.getProperty("java.home"), "bin", tool).toString();
    }

    /** The environment variable the example plugin reads: server-everything over stdio. */
    private static Map<String, String> everythingFromTheEnvironment() {
        return Map.of("MCP_HOST_SERVERS", "{\"everything\": {\"command\": \"node\", \"args\": [\""
                + EVERYTHING + "\"]}}");
    }

    @Test
    void theEmbeddingAppCallsAToolAndItsStdoutHoldsOnlyItsOwnLines() throws IOException {
        assertTrue(Files.isRegularFile(EMBED_JAR), EMBED_JAR + " was not built by the invoker plugin");
        Path config = home.resolve("everything.json");
        Files.writeString(config, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": [\""
                + EVERYTHING + "\"]}}}");
        List<String> command = Stream.concat(Stream.of(java("java"), "-p",
                EMBED.resolve("modules") + File.pathSeparator + EMBED_JAR, "-m", MAIN, "--config", config.toString()),
                SUM.stream()).toList();
        Cli.Run run = Cli.exec(command, home, home, Map.of());
        assertEquals(0, run.exitCode(), run.toString());
        List<String> lines = run.out().lines().toList();
        assertEquals(2, lines.size(), "only the app's own lines on stdout: " + run);
        assertTrue(lines.get(0).matches("tools: \\d+"), run.toString());
        assertEquals("result: The sum of 2 and 40 is 42.", lines.get(1), run.toString());
    }

    /** What an embedder gets with mcp.host.defaults, resolved by Maven from the installed poms. */
    @Test
    void theEmbeddersRuntimeHasNoCommandLineNoLoggingBackendOfOursAndNoTestServer() throws IOException {
        Path modules = EMBED.resolve("modules");
        assertTrue(Files.isDirectory(modules), modules + " was not built by the invoker plugin");
        List<String> jars;
        try (Stream<Path> files = Files.list(modules)) {
            jars = files.map(path -> path.getFileName().toString()).sorted().toList();
        }
        assertTrue(jars.stream().anyMatch(jar -> jar.startsWith("mcp.host-")), jars.toString());
        assertTrue(jars.stream().anyMatch(jar -> jar.startsWith("mcp.transport.stdio-")), jars.toString());
        for (String jar : jars) {
            assertFalse(jar.startsWith("picocli") || jar.startsWith("tinylog") || jar.startsWith("slf4j-tinylog")
                    || jar.startsWith("mcp.testkit") || jar.startsWith("mcp.cli") || jar.startsWith("spring-")
                    || jar.startsWith("mcp.springai"), "an embedder got " + jar + ": " + jars);
        }
    }

    /**
     * The Spring AI example, a Spring Boot application on the class path: its ChatClient, on the example's scripted
     * model, calls server-everything's tool through mcp-host's auto-configuration, and stdout holds its own lines only.
     */
    @Test
    void theSpringAiAppsChatClientCallsAToolAndItsStdoutHoldsOnlyItsOwnLines() throws IOException {
        Path jar = SPRING_AI.resolve("mcp-example-spring-ai-1.0.0.jar");
        assertTrue(Files.isRegularFile(jar), jar + " was not built by the invoker plugin");
        Path config = home.resolve("everything.json");
        Files.writeString(config, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": [\""
                + EVERYTHING + "\"]}}}");
        List<String> command = Stream.concat(Stream.of(java("java"), "-cp",
                jar + File.pathSeparator + SPRING_AI.resolve("lib") + File.separator + "*",
                "com.example.mcp.springai.Application", "--mcp-host.config-file=" + config), SUM.stream()).toList();
        Cli.Run run = Cli.exec(command, home, home, Map.of());
        assertEquals(0, run.exitCode(), run.toString());
        List<String> lines = run.out().lines().toList();
        assertEquals(2, lines.size(), "only the app's own lines on stdout: " + run);
        assertTrue(lines.get(0).matches("tools: \\d+"), run.toString());
        assertEquals("answer: The sum of 2 and 40 is 42.", lines.get(1), run.toString());
    }

    /** docs/spring-ai.md shows the example's code as it is, so what the page shows is what the invoker compiled. */
    @Test
    void theSpringAiPageShowsTheExamplesCode() throws IOException {
        String page = Files.readString(Path.of(System.getProperty("mcp.docs.dir", "../docs")).resolve("spring-ai.md"));
        Path sources = Path.of(System.getProperty("mcp.examples.source", "../examples")).resolve("spring-ai/src/main");
        for (Path file : List.of(sources.resolve("java/com/example/mcp/springai/Application.java"),
                sources.resolve("java/com/example/mcp/springai/ScriptedChatModel.java"),
                sources.resolve("resources/application.properties"))) {
            String lang = file.toString().endsWith(".java") ? "java" : "properties";
            assertTrue(page.contains("```" + lang + "\n" + Files.readString(file) + "```"),
                    "docs/spring-ai.md does not show " + file + " as it is");
        }
    }

    @Test
    void thePluginsServersAppearInListThroughThePluginFolder() throws IOException {
        assertTrue(Files.isRegularFile(PLUGIN_JAR), PLUGIN_JAR + " was not built by the invoker plugin");
        Path folder = Files.createDirectories(home.resolve(".config/mcp-host/plugins"));
        Files.copy(PLUGIN_JAR, folder.resolve(PLUGIN_JAR.getFileName()));
        // A copy of mcp-host's own API beside it, as a user who copies a plugin's whole dependency folder has.
        Path api;
        try (Stream<Path> jars = Files.list(EMBED.resolve("modules"))) {
            api = jars.filter(jar -> jar.getFileName().toString().startsWith("mcp.api-")).findFirst().orElseThrow();
        }
        Files.copy(api, folder.resolve(api.getFileName()));
        Cli.Run run = Cli.run(home, home, everythingFromTheEnvironment(), "list");
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("Environment variable"), run.toString());
        assertTrue(run.out().contains("everything [stdio]"), run.toString());
        assertTrue(run.err().contains("mcp.api") && run.err().contains("ignored"), run.toString());
    }

    @Test
    void thePluginsServersAppearInListThroughThePluginPathOption() {
        Cli.Run without = Cli.run(home, home, everythingFromTheEnvironment(), "list", "--json");
        assertEquals(0, without.exitCode(), without.toString());
        assertFalse(without.out().contains("\"everything\""), "no plugin, no server: " + without);

        Cli.Run run = Cli.run(home, home, everythingFromTheEnvironment(), "--plugin-path", PLUGIN_JAR.toString(),
                "tools", "--server", "everything");
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("mcp_everything_get_sum"), run.toString());

        Cli.Run missing = Cli.run(home, home, Map.of(), "--plugin-path", home.resolve("nope.jar").toString(), "list");
        assertEquals(2, missing.exitCode(), missing.toString());
        assertTrue(missing.err().contains("nope.jar"), missing.toString());
    }

    /**
     * The README's embedding snippet, as a newcomer pastes it: its module line and its class, compiled against
     * what an embedder's Maven resolved, then run on a user-level config of server-everything.
     */
    @Test
    void theReadmesEmbeddingSnippetCompilesAndRuns() throws IOException {
        String readme = Files.readString(Path.of(System.getProperty("mcp.readme", "../README.md")));
        java.util.regex.Matcher block = java.util.regex.Pattern.compile("```java\n(// module-info\\.java: (.*?)\n"
                + "(package (\\S+);.*?))```", java.util.regex.Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(), "the README has an embedding snippet that names its module-info");
        String packageName = block.group(4);
        Path sources = Files.createDirectories(home.resolve("src").resolve(packageName.replace('.', '/')));
        Files.writeString(home.resolve("src/module-info.java"), block.group(2) + "\n");
        Files.writeString(sources.resolve("Agent.java"), block.group(3));
        Path classes = home.resolve("classes");
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        List<String> options = List.of("--release", "17", "-d", classes.toString(),
                "--module-path", EMBED.resolve("modules").toString(),
                home.resolve("src/module-info.java").toString(), sources.resolve("Agent.java").toString());
        int status = javac.run(null, null, null, options.toArray(String[]::new));
        assertEquals(0, status, "the README's snippet does not compile (see the compiler's output above)");

        Path userConfig = Files.createDirectories(home.resolve(".config/mcp-host")).resolve("mcp.json");
        Files.writeString(userConfig, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": [\""
                + EVERYTHING + "\"]}}}");
        String module = block.group(2).replaceAll(".*module\\s+(\\S+)\\s*\\{.*", "$1");
        List<String> command = List.of(java("java"), "-p",
                EMBED.resolve("modules") + File.pathSeparator + classes, "-m", module + "/" + packageName + ".Agent");
        Cli.Run run = Cli.exec(command, home, home, Map.of());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("mcp_everything_get_sum: "), run.toString());
        assertTrue(run.out().strip().endsWith("The sum of 2 and 40 is 42."), run.toString());
    }

    /** The jlink command of examples/embed/README.md: the app, the plugin, the app's logging backend; nothing else. */
    @Test
    void aJlinkImageOfTheAppAndThePluginRunsAndCallsATool() throws IOException {
        Path image = home.resolve("image");
        List<String> jlink = List.of(java("jlink"),
                "--module-path", String.join(File.pathSeparator, EMBED.resolve("modules").toString(),
                        EMBED_JAR.toString(), PLUGIN_JAR.toString()),
                "--add-modules", "com.example.mcp.embed,com.example.mcp.envsource,org.slf4j.simple",
                "--output", image.toString());
        Cli.Run linked = Cli.exec(jlink, home, home, Map.of());
        assertEquals(0, linked.exitCode(), linked.toString());

        List<String> command = Stream.concat(Stream.of(image.resolve("bin/java").toString(), "-m", MAIN),
                SUM.stream()).toList();
        Cli.Run run = Cli.exec(command, home, home, everythingFromTheEnvironment());
        assertEquals(0, run.exitCode(), run.toString());
        assertEquals("result: The sum of 2 and 40 is 42.", run.out().lines().reduce((a, b) -> b).orElse(""),
                run.toString());
        assertFalse(run.err().contains("No SLF4J providers"), "the image has the app's logging backend: " + run);
    }

    /** The LangChain4j example on the class path: its scripted model asks for a tool and answers with the result. */
    @Test
    void theLangChain4jAgentAnswersFromAToolOnTheClassPath() throws IOException {
        Path jar = LANGCHAIN4J.resolve("mcp-example-langchain4j-1.0.0.jar");
        assertTrue(Files.isRegularFile(jar), jar + " was not built by the invoker plugin");
        Path config = home.resolve("everything.json");
        Files.writeString(config, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": [\""
                + EVERYTHING + "\"]}}}");
        List<String> command = Stream.concat(Stream.of(java("java"), "-cp",
                LANGCHAIN4J.resolve("lib") + File.separator + "*" + File.pathSeparator + jar,
                "com.example.mcp.langchain4j.Agent", "--config", config.toString()), SUM.stream()).toList();
        Cli.Run run = Cli.exec(command, home, home, Map.of());
        assertEquals(0, run.exitCode(), run.toString());
        assertEquals(List.of("answer: The sum of 2 and 40 is 42."), run.out().lines().toList(), run.toString());

        List<String> jars;
        try (Stream<Path> files = Files.list(LANGCHAIN4J.resolve("lib"))) {
            jars = files.map(path -> path.getFileName().toString()).sorted().toList();
        }
        assertTrue(jars.stream().anyMatch(name -> name.startsWith("mcp.langchain4j-")), jars.toString());
        assertTrue(jars.stream().anyMatch(name -> name.startsWith("langchain4j-1.19.0")), jars.toString());
        assertTrue(jars.stream().anyMatch(name -> name.startsWith("mcp.transport.http-")), jars.toString());
        for (String name : jars) {
            assertFalse(name.startsWith("picocli") || name.startsWith("tinylog") || name.startsWith("mcp.testkit")
                    || name.startsWith("mcp.cli"), "a LangChain4j user got " + name + ": " + jars);
        }
    }

    /** docs/langchain4j.md shows the example's code as it is, so the page's example compiles (the invoker built it). */
    @Test
    void theLangChain4jPageShowsTheExamplesCodeAsItIs() throws IOException {
        String page = Files.readString(Path.of("../docs/langchain4j.md"));
        for (String source : List.of("Agent.java", "ScriptedModel.java")) {
            String code = Files.readString(LANGCHAIN4J_SOURCES.resolve(source));
            assertTrue(page.contains("```java\n" + code + "```"), "docs/langchain4j.md does not show " + source
                    + " as examples/langchain4j has it");
        }
    }
}
