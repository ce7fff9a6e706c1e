package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import mcp.api.ServerSpec;
import mcp.api.spi.CapabilitySource.Result;
import mcp.proptest.Trees;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Whatever bytes sit in every JSON config file that the sources read (eleven tools' and mcp-host's), in
 * Codex's TOML files or in goose's YAML file, no source throws, every problem names a file that was
 * written, and every server found comes from one (checked by {@link SourcesProperties#check}).
 *
 * <p>{@code mvn verify} replays the inputs under {@code SourcesFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (docs/testing.md).
 */
class SourcesFuzzTest {

    /** One tree per target; every input overwrites all of its files. */
    private static Fixture jsonTree;
    private static Fixture tomlTree;
    private static Fixture yamlTree;

    @BeforeAll
    static void createTrees() throws IOException {
        jsonTree = Fixture.empty(Files.createTempDirectory("mcp-config-fuzz"));
        tomlTree = Fixture.empty(Files.createTempDirectory("mcp-config-fuzz"));
        yamlTree = Fixture.empty(Files.createTempDirectory("mcp-config-fuzz"));
    }

    @FuzzTest(maxDuration = "5m")
    void anyBytesInEveryJsonConfigNeverMakeASourceThrow(byte[] content) throws IOException {
        Fixture tree = jsonTree;
        // Claude Code's projects map is keyed by the project's path: let the fuzzer's documents name it.
        byte[] withProject = new String(content, java.nio.charset.StandardCharsets.ISO_8859_1)
                .replace("__PROJECT__", tree.project.toString()).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        SourcesProperties.checkEverySource(tree, SourcesProperties.writeAll(tree, SourcesProperties.JSON_FILES, withProject));
    }

    @FuzzTest(maxDuration = "5m")
    void anyBytesInCodexTomlNeverMakeItThrow(byte[] content) throws IOException {
        Fixture tree = tomlTree;
        Set<Path> written = SourcesProperties.writeAll(tree, SourcesProperties.TOML_FILES, content);
        Result result = SourcesProperties.check(tree, new CodexSource(), written);
        for (ServerSpec spec : result.servers()) {
            assertTrue(spec.location().startsWith("/mcp_servers/"), spec.location());
        }
    }

    @FuzzTest(maxDuration = "5m")
    void anyBytesInGooseYamlNeverMakeItThrow(byte[] content) throws IOException {
        Fixture tree = yamlTree;
        Set<Path> written = SourcesProperties.writeAll(tree, SourcesProperties.YAML_FILES, content);
        Result result = SourcesProperties.check(tree, new GooseSource(), written);
        for (ServerSpec spec : result.servers()) {
            assertTrue(spec.location().startsWith("/extensions/"), spec.location());
        }
    }

    @AfterAll
    static void deleteTrees() throws IOException {
        Trees.delete(jsonTree.root);
        Trees.delete(tomlTree.root);
        Trees.delete(yamlTree.root);
    }
}
