package mcp.transport.http.internal;

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
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.TransportProvider;
import mcp.auth.internal.FileAuthStorage;
import mcp.transport.http.HttpTransports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The providers (transports, resolver) are found by ServiceLoader, and the descriptor and the services
 * files agree; the {@code file} auth storage of {@code mcp.auth}, which HttpTransports' factories make, is
 * found beside them.
 */
class ServiceRegistrationTest {

    private static final Path DESCRIPTOR_SOURCE = Path.of("src/main/java/module-info.java");

    @Test
    void serviceLoaderFindsBothTransportsAndTheResolver() {
        Module self = getClass().getModule();
        if (self.isNamed()) {
            // Tests are patched into the module, which provides the services but does not use them.
            self.addUses(TransportProvider.class);
            self.addUses(AuthResolver.class);
            self.addUses(AuthStorage.class);
        }
        List<String> transports = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .map(TransportProvider::id).collect(Collectors.toList());
        assertTrue(transports.containsAll(List.of("http", "sse")), transports.toString());
        assertEquals(1, transports.stream().filter("http"::equals).count(), transports.toString());
        List<String> resolvers = ServiceLoader.load(AuthResolver.class).stream().map(ServiceLoader.Provider::get)
                .map(AuthResolver::id).collect(Collectors.toList());
        assertEquals(List.of("values"), resolvers);
        List<String> storages = ServiceLoader.load(AuthStorage.class).stream().map(ServiceLoader.Provider::get)
                .map(AuthStorage::id).collect(Collectors.toList());
        assertEquals(List.of("file"), storages);
    }

    @Test
    void theFactoriesMakeTheSameProviders() {
        assertEquals(StreamableHttpTransportProvider.class, HttpTransports.httpProvider().getClass());
        assertEquals(LegacySseTransportProvider.class, HttpTransports.sseProvider().getClass());
        assertEquals(ValuesAuthResolver.class, HttpTransports.valuesResolver().getClass());
        assertEquals("http", HttpTransports.httpProvider().id());
        assertEquals("sse", HttpTransports.sseProvider().id());
        assertEquals("values", HttpTransports.valuesResolver().id());
        assertEquals(FileAuthStorage.class, HttpTransports.defaultAuthStorage().getClass());
        assertEquals("file", HttpTransports.defaultAuthStorage().id());
    }

    @Test
    void theFactoriesMakeFileStores(@TempDir Path temp) {
        assertEquals(temp.toAbsolutePath().normalize(),
                ((FileAuthStorage) HttpTransports.fileAuthStorage(temp)).directory());
        assertEquals(FileAuthStorage.class, HttpTransports.defaultAuthStorage().getClass());
        assertEquals(HttpTransports.FILE_STORAGE_ID, HttpTransports.defaultAuthStorage().id());
    }

    @Test
    void descriptorAndServicesFilesNameTheSameProviders() throws IOException {
        check(TransportProvider.class, Set.of(StreamableHttpTransportProvider.class.getName(),
                LegacySseTransportProvider.class.getName()));
        check(AuthResolver.class, Set.of(ValuesAuthResolver.class.getName()));
        Module module = ValuesAuthResolver.class.getModule();
        if (module.isNamed()) {
            assertEquals(Set.of("mcp.transport.http"), module.getDescriptor().exports().stream()
                    .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()), "only the API package is exported");
        }
    }

    private static void check(Class<?> service, Set<String> expected) throws IOException {
        Path file = Path.of("src/main/resources/META-INF/services/" + service.getName());
        Set<String> listed = Files.readAllLines(file).stream().map(line -> line.replaceAll("#.*", "").trim())
                .filter(line -> !line.isEmpty()).collect(Collectors.toSet());
        String source = Files.readString(DESCRIPTOR_SOURCE).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//.*", "");
        Matcher m = Pattern.compile("provides\\s+" + Pattern.quote(service.getName()) + "\\s+with\\s+([^;]+);").matcher(source);
        assertTrue(m.find(), "no provides clause for " + service.getName());
        Set<String> declared = Pattern.compile("\\s*,\\s*").splitAsStream(m.group(1).trim()).collect(Collectors.toSet());
        assertEquals(expected, declared);
        assertEquals(declared, listed);
        Module module = ValuesAuthResolver.class.getModule();
        if (module.isNamed()) {
            Set<String> compiled = module.getDescriptor().provides().stream()
                    .filter(p -> p.service().equals(service.getName()))
                    .flatMap(p -> p.providers().stream()).collect(Collectors.toSet());
            assertEquals(listed, compiled);
        }
    }
}
