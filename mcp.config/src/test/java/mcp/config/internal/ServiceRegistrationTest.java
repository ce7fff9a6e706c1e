package mcp.config.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import mcp.api.spi.ConfigFilter;
import mcp.api.spi.Providers;
import mcp.config.Discovery;
import org.junit.jupiter.api.Test;

/** The filters are found by ServiceLoader, and the descriptor and the services file agree. */
class ServiceRegistrationTest {

    private static final String SERVICE = ConfigFilter.class.getName();
    private static final Path SERVICES_FILE = Path.of("src/main/resources/META-INF/services/" + SERVICE);
    private static final Path DESCRIPTOR_SOURCE = Path.of("src/main/java/module-info.java");
    private static final Set<String> BUILT_INS = Set.of(EnabledFilter.class.getName(), ProjectFilter.class.getName(),
            ExaFilter.class.getName());

    @Test
    void theOneLookupPointFindsTheThreeFiltersOnce() {
        Map<String, ConfigFilter> byId = Providers.byId(ConfigFilter.class,
                Providers.load(ConfigFilter.class, Discovery.class.getClassLoader()), ConfigFilter::id);
        assertEquals(Set.of("enabled", "project", "exa"), byId.keySet());
        assertEquals(EnabledFilter.class, byId.get(EnabledFilter.ID).getClass());
        assertEquals(ProjectFilter.class, byId.get(ProjectFilter.ID).getClass());
        assertEquals(ExaFilter.class, byId.get(ExaFilter.ID).getClass());
    }

    @Test
    void descriptorAndServicesFileNameTheSameProviders() throws IOException {
        Set<String> servicesFile = Files.readAllLines(SERVICES_FILE).stream()
                .map(line -> line.replaceAll("#.*", "").trim())
                .filter(line -> !line.isEmpty())
                .collect(Collectors.toSet());

        Set<String> declared = providesInSource();
        assertEquals(BUILT_INS, declared);
        assertEquals(declared, servicesFile);

        // When the tests run on the module path, the compiled descriptor must say the same.
        Module module = EnabledFilter.class.getModule();
        if (module.isNamed()) {
            Set<String> compiled = module.getDescriptor().provides().stream()
                    .filter(p -> p.service().equals(SERVICE))
                    .flatMap(p -> p.providers().stream())
                    .collect(Collectors.toSet());
            assertEquals(servicesFile, compiled);
            assertEquals(Set.of("mcp.config"), module.getDescriptor().exports().stream()
                    .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()), "only the API package is exported");
        }
    }

    private static Set<String> providesInSource() throws IOException {
        String source = Files.readString(DESCRIPTOR_SOURCE).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//.*", "");
        Matcher m = Pattern.compile("provides\\s+" + Pattern.quote(SERVICE) + "\\s+with\\s+([^;]+);").matcher(source);
        assertTrue(m.find(), "no provides clause for " + SERVICE);
        return Pattern.compile("\\s*,\\s*").splitAsStream(m.group(1).trim()).collect(Collectors.toSet());
    }
}
