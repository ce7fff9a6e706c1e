package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import mcp.api.spi.CapabilitySource;
import org.junit.jupiter.api.Test;

/** The eight sources are found by ServiceLoader, and the descriptor and the services file agree. */
class ServiceRegistrationTest {

    private static final String SERVICE = CapabilitySource.class.getName();
    private static final Path SERVICES_FILE = Path.of("src/main/resources/META-INF/services/" + SERVICE);
    private static final Path DESCRIPTOR_SOURCE = Path.of("src/main/java/module-info.java");

    /** @return one instance of every built-in source, highest priority first */
    static List<CapabilitySource> allSources() {
        return List.of(new NativeSource(), new ClaudeSource(), new CodexSource(), new GeminiSource(),
                new CursorSource(), new WindsurfSource(), new VsCodeSource(), new McpJsonSource());
    }

    @Test
    void serviceLoaderFindsTheEightSourcesWithTheirPriorities() {
        Module self = getClass().getModule();
        if (self.isNamed()) {
            // Tests are patched into the module, which provides the service but does not use it.
            self.addUses(CapabilitySource.class);
        }
        Map<String, Integer> found = new LinkedHashMap<>();
        Map<String, String> names = new LinkedHashMap<>();
        for (CapabilitySource source : ServiceLoader.load(CapabilitySource.class, getClass().getClassLoader())) {
            assertEquals(null, found.put(source.id(), source.priority()), "two sources with id " + source.id());
            names.put(source.id(), source.displayName());
        }
        assertEquals(Map.of("native", 100, "claude", 80, "codex", 70, "gemini", 60, "cursor", 50, "windsurf", 50,
                "vscode", 20, "mcp-json", 5), found);
        assertEquals(Map.of("native", "mcp-host", "claude", "Claude Code", "codex", "OpenAI Codex", "gemini", "Gemini CLI",
                "cursor", "Cursor", "windsurf", "Windsurf", "vscode", "VS Code", "mcp-json", "MCP Config"), names);
    }

    @Test
    void descriptorAndServicesFileNameTheSameProviders() throws IOException {
        Set<String> servicesFile = Files.readAllLines(SERVICES_FILE).stream()
                .map(line -> line.replaceAll("#.*", "").trim())
                .filter(line -> !line.isEmpty())
                .collect(Collectors.toSet());

        Set<String> declared = providesInSource();
        assertEquals(allSources().stream().map(s -> s.getClass().getName()).collect(Collectors.toSet()), declared);
        assertEquals(declared, servicesFile);

        // When the tests run on the module path, the compiled descriptor must say the same.
        Module module = NativeSource.class.getModule();
        if (module.isNamed()) {
            Set<String> compiled = module.getDescriptor().provides().stream()
                    .filter(p -> p.service().equals(SERVICE))
                    .flatMap(p -> p.providers().stream())
                    .collect(Collectors.toSet());
            assertEquals(servicesFile, compiled);
            assertEquals(Set.of("mcp.config"), module.getDescriptor().exports().stream()
                    .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()), "the sources are internal");
        }
    }

    private static Set<String> providesInSource() throws IOException {
        String source = Files.readString(DESCRIPTOR_SOURCE).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//.*", "");
        Matcher m = Pattern.compile("provides\\s+" + Pattern.quote(SERVICE) + "\\s+with\\s+([^;]+);").matcher(source);
        assertTrue(m.find(), "no provides clause for " + SERVICE);
        return Pattern.compile("\\s*,\\s*").splitAsStream(m.group(1).trim()).collect(Collectors.toSet());
    }
}
