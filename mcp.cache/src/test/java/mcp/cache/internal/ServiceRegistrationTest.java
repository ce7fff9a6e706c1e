package mcp.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import mcp.api.spi.ToolCacheProvider;
import mcp.cache.FileToolCaches;
import org.junit.jupiter.api.Test;

/** The provider is found by ServiceLoader, and the descriptor and the services file agree. */
class ServiceRegistrationTest {

    private static final String SERVICE = ToolCacheProvider.class.getName();
    private static final Path SERVICES_FILE = Path.of("src/main/resources/META-INF/services/" + SERVICE);
    private static final Path DESCRIPTOR_SOURCE = Path.of("src/main/java/module-info.java");

    @Test
    void serviceLoaderFindsTheFileProvider() {
        Module self = getClass().getModule();
        if (self.isNamed()) {
            // Tests are patched into the module, which provides the service but does not use it.
            self.addUses(ToolCacheProvider.class);
        }
        List<String> ids = ServiceLoader.load(ToolCacheProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .map(ToolCacheProvider::id)
                .collect(Collectors.toList());
        assertTrue(ids.contains("file"), "found " + ids);
        assertEquals(1, ids.stream().filter("file"::equals).count(), "found " + ids);
    }

    @Test
    void theFactoryMakesTheSameProvider() {
        ToolCacheProvider provider = FileToolCaches.provider();
        assertEquals("file", provider.id());
        assertEquals(FileToolCacheProvider.class, provider.getClass());
    }

    @Test
    void descriptorAndServicesFileNameTheSameProviders() throws IOException {
        Set<String> servicesFile = Files.readAllLines(SERVICES_FILE).stream()
                .map(line -> line.replaceAll("#.*", "").trim())
                .filter(line -> !line.isEmpty())
                .collect(Collectors.toSet());

        Set<String> declared = providesInSource();
        assertEquals(Set.of(FileToolCacheProvider.class.getName()), declared);
        assertEquals(declared, servicesFile);

        // When the tests run on the module path, the compiled descriptor must say the same.
        Module module = FileToolCacheProvider.class.getModule();
        if (module.isNamed()) {
            Set<String> compiled = module.getDescriptor().provides().stream()
                    .filter(p -> p.service().equals(SERVICE))
                    .flatMap(p -> p.providers().stream())
                    .collect(Collectors.toSet());
            assertEquals(servicesFile, compiled);
            assertEquals(Set.of("mcp.cache"), module.getDescriptor().exports().stream()
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
