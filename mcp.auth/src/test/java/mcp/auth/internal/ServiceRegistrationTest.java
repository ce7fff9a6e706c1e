package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.AuthorizationUi;
import mcp.auth.AuthProviders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The auth storage and the authorization UIs are found by ServiceLoader under the ids they had in
 * {@code mcp.transport.http}, the descriptor and the services files agree, and the implementation package
 * is exported to the HTTP transport only. The factories make the same storage.
 */
class ServiceRegistrationTest {

    private static final Path DESCRIPTOR_SOURCE = Path.of("src/main/java/module-info.java");

    @Test
    void serviceLoaderFindsTheStorageAndTheUis() {
        Module self = getClass().getModule();
        if (self.isNamed()) {
            // Tests are patched into the module, which provides the services but does not use them.
            self.addUses(AuthStorage.class);
            self.addUses(AuthorizationUi.class);
        }
        List<String> storages = ServiceLoader.load(AuthStorage.class).stream().map(ServiceLoader.Provider::get)
                .map(AuthStorage::id).collect(Collectors.toList());
        assertEquals(List.of("file"), storages);
        Set<String> uis = ServiceLoader.load(AuthorizationUi.class).stream().map(ServiceLoader.Provider::get)
                .map(AuthorizationUi::id).collect(Collectors.toSet());
        assertEquals(Set.of("browser", "headless"), uis);
    }

    @Test
    void theFactoriesMakeFileStores(@TempDir Path temp) {
        assertEquals(temp.toAbsolutePath().normalize(),
                ((FileAuthStorage) AuthProviders.fileAuthStorage(temp)).directory());
        assertEquals(FileAuthStorage.class, AuthProviders.defaultAuthStorage().getClass());
        assertEquals(AuthProviders.FILE_STORAGE_ID, AuthProviders.defaultAuthStorage().id());
        assertEquals("file", AuthProviders.FILE_STORAGE_ID);
    }

    @Test
    void descriptorAndServicesFilesNameTheSameProviders() throws IOException {
        check(AuthStorage.class, Set.of(FileAuthStorage.class.getName()));
        check(AuthorizationUi.class, Set.of(BrowserAuthorizationUi.class.getName(),
                HeadlessAuthorizationUi.class.getName()));
        Module module = FileAuthStorage.class.getModule();
        if (module.isNamed()) {
            Map<String, Set<String>> exports = module.getDescriptor().exports().stream()
                    .collect(Collectors.toMap(ModuleDescriptor.Exports::source, ModuleDescriptor.Exports::targets));
            assertEquals(Map.of("mcp.auth", Set.of(), "mcp.auth.internal", Set.of("mcp.transport.http")), exports,
                    "the API package to all, the implementation to the HTTP transport alone");
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
        Module module = FileAuthStorage.class.getModule();
        if (module.isNamed()) {
            Set<String> compiled = module.getDescriptor().provides().stream()
                    .filter(p -> p.service().equals(service.getName()))
                    .flatMap(p -> p.providers().stream()).collect(Collectors.toSet());
            assertEquals(listed, compiled);
        }
    }
}
