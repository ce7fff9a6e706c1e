package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.CapabilitySource.Context;
import mcp.api.spi.CapabilitySource.Result;

/**
 * A copy of {@code src/test/resources/fixtures/tree} in a temporary directory: a home with every
 * tool's user file, and {@code work/project} (a repository: the fixture adds its {@code .git}) with
 * every tool's project files and a nested working directory {@code packages/app}. {@code work}, above
 * the repository root, holds decoys that must never be read. {@code __ROOT__} in the files becomes
 * the temporary directory (Claude Code's {@code projects} map is keyed by absolute paths).
 */
final class Fixture {

    static final Path TREE = Path.of("src/test/resources/fixtures/tree");

    final Path root;
    final Path home;
    final Path work;
    final Path project;
    final Path app;

    private Fixture(Path root) {
        this.root = root;
        this.home = root.resolve("home");
        this.work = root.resolve("work");
        this.project = work.resolve("project");
        this.app = project.resolve("packages/app");
    }

    /** Copies the fixture tree into {@code dir}, with {@code .git} at the project root. */
    static Fixture copy(Path dir) {
        Fixture fixture = new Fixture(dir.toAbsolutePath().normalize());
        try (Stream<Path> files = Files.walk(TREE)) {
            for (Path source : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
                String text = Files.readString(source, StandardCharsets.UTF_8).replace("__ROOT__", fixture.root.toString());
                fixture.write(fixture.root.resolve(TREE.relativize(source).toString()), text);
            }
            Files.createDirectories(fixture.project.resolve(".git"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fixture;
    }

    /** An empty home and project (with {@code .git}) and working directory, no config files. */
    static Fixture empty(Path dir) {
        Fixture fixture = new Fixture(dir.toAbsolutePath().normalize());
        try {
            Files.createDirectories(fixture.home);
            Files.createDirectories(fixture.app);
            Files.createDirectories(fixture.project.resolve(".git"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fixture;
    }

    /** Approves every project server in Claude Code (user settings), so that they count; returns the file. */
    Path approveInClaude() {
        return write(home.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true}");
    }

    /** Trusts the project in Gemini CLI, so that its servers (and the user's) count; returns the trust file. */
    Path trustInGemini() {
        return write(home.resolve(".gemini/trustedFolders.json"), "{\"" + project + "\": \"TRUST_FOLDER\"}");
    }

    /** Trusts the working directory in Codex, so that its {@code .codex/config.toml} counts; returns the user file. */
    Path trustInCodex() {
        return write(home.resolve(".codex/config.toml"), "[projects.\"" + app + "\"]\ntrust_level = \"trusted\"\n");
    }

    Context context() {
        return context(Map.of());
    }

    /**
     * The context of the working directory; Claude Code's managed directory is {@code root/managed}, never the
     * machine's; the bearer token the tree's Codex file names is set unless {@code environment} says otherwise.
     */
    Context context(Map<String, String> environment) {
        Map<String, String> hermetic = new java.util.HashMap<>(environment);
        hermetic.putIfAbsent("FIGMA_OAUTH_TOKEN", "f1gma");
        hermetic.putIfAbsent(ClaudePolicy.DIRECTORY_VARIABLE, managed().toString());
        hermetic.putIfAbsent(GeminiSource.SYSTEM_SETTINGS_VARIABLE, managed().resolve("gemini-cli/settings.json").toString());
        return new Context(app, home, hermetic);
    }

    /** @return where the tests put Claude Code's managed files */
    Path managed() {
        return root.resolve("managed");
    }

    /** The tools' documented examples the source tests read, one folder per tool. */
    static final Path EXAMPLES = Path.of("src/test/resources/fixtures/examples");

    /**
     * Writes one of the {@link #EXAMPLES} to {@code file}, {@code __ROOT__} replaced by the temporary
     * directory; returns the file.
     */
    Path install(String example, Path file) {
        try {
            String text = Files.readString(EXAMPLES.resolve(example), StandardCharsets.UTF_8);
            return write(file, text.replace("__ROOT__", root.toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param kind names the kind of an inactive entry's reason (its first words)
     * @return each server of the result to {@code "active"}, each inactive one to its kind; asserts no problem
     */
    static java.util.Map<String, String> states(Result result, java.util.function.Function<String, String> kind) {
        assertEquals(List.of(), result.problems());
        java.util.Map<String, String> states = new java.util.LinkedHashMap<>();
        result.servers().forEach(server -> states.put(server.name(), "active"));
        result.inactive().forEach(inactive -> states.put(inactive.server().name(), kind.apply(inactive.reason())));
        return states;
    }

    static List<String> names(Result result) {
        return result.servers().stream().map(ServerSpec::name).collect(Collectors.toList());
    }

    static ServerSpec server(Result result, String name) {
        List<ServerSpec> found = result.servers().stream().filter(s -> s.name().equals(name)).collect(Collectors.toList());
        assertEquals(1, found.size(), () -> "servers named " + name + " in " + names(result));
        return found.get(0);
    }

    /** Checks the source metadata and location of a spec. */
    static void assertSource(CapabilitySource source, Path file, Level level, String location, ServerSpec spec) {
        assertEquals(source.id(), spec.source().providerId(), spec.name());
        assertEquals(source.displayName(), spec.source().providerName(), spec.name());
        assertEquals(java.util.Optional.of(file), spec.source().path(), spec.name());
        assertTrue(file.isAbsolute());
        assertEquals(level, spec.source().level(), spec.name());
        assertEquals(location, spec.location(), spec.name());
    }

    /** @return one instance of each built-in source */
    static java.util.List<mcp.api.spi.CapabilitySource> allSources() {
        return java.util.List.of(new NativeSource(), new ClaudeSource(), new CodexSource(), new GeminiSource(),
                new OpenCodeSource(), new GooseSource(), new CursorSource(), new WindsurfSource(), new KiroSource(),
                new ZedSource(), new ClaudeDesktopSource(), new VsCodeSource(), new McpJsonSource());
    }
}
