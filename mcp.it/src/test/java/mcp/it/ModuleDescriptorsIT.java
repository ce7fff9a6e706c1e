package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.spi.ToolProvider;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The built jars are real named modules (not automatic ones), and they resolve and bind their
 * services on the module path by themselves, as a jlink image or a modular embedder would use them.
 */
class ModuleDescriptorsIT {

    /** Every jar this build ships so far; the test fails if one is missing rather than passing on fewer. */
    private static final Set<String> OUR_MODULES = Set.of("mcp.api", "mcp.protocol", "mcp.server", "mcp.resourceserver", "mcp.transport.stdio",
            "mcp.transport.http", "mcp.auth", "mcp.cache", "mcp.consent", "mcp.config", "mcp.manager", "mcp.host",
            "mcp.host.defaults", "mcp.gateway", "mcp.cli", "mcp.testkit", "mcp.search");
    /**
     * Adapters for frameworks whose jars are not named modules (LangChain4j, Spring): they run on the class path, so
     * they carry an Automatic-Module-Name and no descriptor, and no module of ours reads them.
     */
    private static final Set<String> CLASS_PATH_ADAPTERS = Set.of("mcp.langchain4j", "mcp.springai");
    /** Aggregators: modules with no package of their own, which only name other modules (as the JDK's java.se). */
    private static final Set<String> AGGREGATORS = Set.of("mcp.host.defaults");

    private static List<Path> pathEntries() {
        List<Path> entries = new ArrayList<>();
        for (String property : List.of("java.class.path", "jdk.module.path")) {
            String value = System.getProperty(property, "");
            for (String entry : value.split(java.io.File.pathSeparator)) {
                if (!entry.isBlank()) {
                    entries.add(Path.of(entry));
                }
            }
        }
        return entries;
    }

    private static List<Path> ourJars() {
        List<Path> jars = pathEntries().stream()
                .filter(p -> p.getFileName().toString().startsWith("mcp."))
                .filter(p -> !isClassPathAdapter(p))
                .toList();
        for (Path jar : jars) {
            assertTrue(Files.isRegularFile(jar) && jar.toString().endsWith(".jar"),
                    jar + " is not a jar: run this test with 'mvn verify', which packages the modules first");
        }
        Set<String> names = jars.stream().map(ModuleDescriptorsIT::descriptor).map(ModuleDescriptor::name)
                .collect(Collectors.toSet());
        assertEquals(OUR_MODULES, names);
        return jars;
    }

    private static boolean isClassPathAdapter(Path jar) {
        return CLASS_PATH_ADAPTERS.contains(jar.getFileName().toString().replaceAll("-\\d.*\\.jar$", ""));
    }

    /** The adapters' jars: an explicit automatic name, the artifact's, and no descriptor that would force one. */
    @Test
    void theClassPathAdaptersNameThemselvesAndHaveNoDescriptor() throws Exception {
        List<Path> adapters = pathEntries().stream().filter(ModuleDescriptorsIT::isClassPathAdapter).toList();
        assertEquals(CLASS_PATH_ADAPTERS, adapters.stream().map(ModuleDescriptorsIT::descriptor)
                .map(ModuleDescriptor::name).collect(Collectors.toSet()), adapters.toString());
        for (Path jar : adapters) {
            ModuleDescriptor descriptor = descriptor(jar);
            assertTrue(descriptor.isAutomatic(), jar + " has a module descriptor");
            try (JarFile file = new JarFile(jar.toFile())) {
                assertEquals(descriptor.name(), file.getManifest().getMainAttributes().getValue("Automatic-Module-Name"),
                        jar + ": the name comes from the manifest, not from the file name");
                assertTrue(file.stream().noneMatch(entry -> entry.getName().endsWith("module-info.class")),
                        jar + " holds a module-info.class");
            }
        }
    }

    /**
     * The local embedding module is an automatic module too (its model, ONNX Runtime and the tokenizer are not named
     * modules), so the image cannot link it: it names itself by its manifest, has no descriptor, and the runtime
     * image holds neither it nor its libraries (it goes in the command's plugin folder: EmbeddingsPluginIT).
     */
    @Test
    void theEmbeddingModuleNamesItselfAndStaysOutOfTheImage() throws Exception {
        Path plugin = Path.of(System.getProperty("mcp.embeddings.plugin", "../mcp.search.embeddings/target/plugin"));
        List<Path> jars;
        try (java.util.stream.Stream<Path> files = Files.list(plugin)) {
            jars = files.filter(file -> file.getFileName().toString().startsWith("mcp.search.embeddings-")).toList();
        }
        assertEquals(1, jars.size(), plugin + ": " + jars);
        ModuleDescriptor descriptor = descriptor(jars.get(0));
        assertTrue(descriptor.isAutomatic(), jars.get(0) + " has a module descriptor");
        assertEquals("mcp.search.embeddings", descriptor.name());
        try (JarFile file = new JarFile(jars.get(0).toFile())) {
            assertEquals("mcp.search.embeddings", file.getManifest().getMainAttributes().getValue("Automatic-Module-Name"));
        }
        String release = Files.readString(Cli.IMAGE.resolve("release"), StandardCharsets.UTF_8);
        String modules = release.lines().filter(line -> line.startsWith("MODULES=")).findFirst().orElseThrow();
        assertTrue(modules.contains("mcp.search ") || modules.contains("mcp.search\""), modules);
        for (String name : List.of("mcp.search.embeddings", "onnxruntime", "langchain4j", "ai.djl")) {
            assertFalse(modules.contains(name), "the image holds " + name + ": " + modules);
        }
    }

    private static ModuleDescriptor descriptor(Path jar) {
        Set<ModuleReference> found = ModuleFinder.of(jar).findAll();
        assertEquals(1, found.size(), jar.toString());
        return found.iterator().next().descriptor();
    }

    @Test
    void everyJarHasARealModuleDescriptor() {
        for (Path jar : ourJars()) {
            ModuleDescriptor descriptor = descriptor(jar);
            assertFalse(descriptor.isAutomatic(), jar + " is an automatic module");
            assertEquals(jar.getFileName().toString().replaceAll("-\\d.*\\.jar$", ""), descriptor.name(),
                    "module name = artifact name");
            if (AGGREGATORS.contains(descriptor.name())) {
                assertEquals(Set.of(), descriptor.packages(), descriptor.name() + " is an aggregator: no code");
                continue;
            }
            assertTrue(descriptor.packages().contains(descriptor.name()),
                    descriptor.name() + " must own the package of its own name");
            for (String pkg : descriptor.packages()) {
                assertTrue(pkg.equals(descriptor.name()) || pkg.startsWith(descriptor.name() + "."),
                        descriptor.name() + " holds foreign package " + pkg);
            }
            // An internal package is never exported to all; at most to mcp-host's own modules (mcp.api.internal).
            assertTrue(descriptor.exports().stream().filter(e -> e.source().contains(".internal"))
                    .allMatch(e -> e.isQualified() && OUR_MODULES.containsAll(e.targets())),
                    descriptor.name() + " exports an internal package beyond mcp-host's own modules");
        }
    }

    /** For class-path users the META-INF/services files must name exactly the descriptor's providers. */
    @Test
    void providesClausesAndServicesFilesAgree() throws Exception {
        int checked = 0;
        for (Path jar : ourJars()) {
            Map<String, Set<String>> provides = new TreeMap<>();
            descriptor(jar).provides().forEach(p -> provides.put(p.service(), new TreeSet<>(p.providers())));
            Map<String, Set<String>> servicesFiles = new TreeMap<>();
            try (JarFile file = new JarFile(jar.toFile())) {
                for (JarEntry entry : java.util.Collections.list(file.entries())) {
                    String name = entry.getName();
                    if (name.startsWith("META-INF/services/") && !entry.isDirectory()) {
                        String text = new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
                        servicesFiles.put(name.substring("META-INF/services/".length()), text.lines()
                                .map(line -> line.replaceAll("#.*", "").trim()).filter(line -> !line.isEmpty())
                                .collect(Collectors.toCollection(TreeSet::new)));
                    }
                }
            }
            assertEquals(provides, servicesFiles, jar.getFileName().toString());
            checked += provides.size();
        }
        assertTrue(checked >= 4, "the built-in providers were checked: " + checked);
    }

    @Test
    void jarDescribeModuleSaysSo() {
        ToolProvider jarTool = ToolProvider.findFirst("jar").orElseThrow();
        for (Path jar : ourJars()) {
            StringWriter out = new StringWriter();
            int status = jarTool.run(new PrintWriter(out), new PrintWriter(new StringWriter()),
                    "--describe-module", "--file", jar.toString());
            assertEquals(0, status);
            String text = out.toString();
            // "mcp.api@0.1.0-SNAPSHOT jar:file:///...!/module-info.class": a compiled descriptor, not a derived name.
            String name = java.util.regex.Pattern.quote(descriptor(jar).name());
            assertTrue(text.strip().split("\n")[0].matches(name + "(@\\S+)? jar:file:.*!/module-info\\.class"), text);
            assertFalse(text.contains("automatic"), text);
        }
    }

    /** JTokkit's own jar is no named module: the reactor's com.knuddels.jtokkit gives it a real descriptor. */
    @Test
    void theTokenizerIsARealNamedModule() {
        List<Path> jars = pathEntries().stream()
                .filter(p -> p.getFileName().toString().matches("(com\\.knuddels\\.)?jtokkit-.*\\.jar")).toList();
        assertEquals(1, jars.size(), "only the named module, not the original jar beside it: " + jars);
        ModuleDescriptor descriptor = descriptor(jars.get(0));
        assertFalse(descriptor.isAutomatic());
        assertEquals("com.knuddels.jtokkit", descriptor.name());
        assertEquals(Set.of("com.knuddels.jtokkit", "com.knuddels.jtokkit.api"), descriptor.packages());
        assertEquals(Set.of("java.base"), descriptor.requires().stream().map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toSet()));
    }

    @Test
    void theBuiltInProvidersAreBoundThroughTheirProvidesClauses() throws Exception {
        List<Path> modulePath = new ArrayList<>(ourJars());
        pathEntries().stream()
                .filter(p -> p.getFileName().toString()
                        .matches("(jackson-(databind|core|annotations|dataformat-toml|dataformat-yaml)|snakeyaml-engine|slf4j-api|json-schema-validator|itu|com\\.knuddels\\.jtokkit)-.*\\.jar"))
                .forEach(modulePath::add);
        ModuleFinder finder = ModuleFinder.of(modulePath.toArray(Path[]::new));
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(finder, ModuleFinder.of(), Set.of("mcp.manager"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                ClassLoader.getPlatformClassLoader());
        List<String> transports = providerIds(layer, "mcp.api.spi.TransportProvider");
        assertEquals(Set.of("stdio", "http", "sse"), Set.copyOf(transports), transports.toString());
        assertEquals(3, transports.size(), transports.toString());
        assertEquals(List.of("values"), providerIds(layer, "mcp.api.spi.AuthResolver"));
        assertEquals(List.of("file"), providerIds(layer, "mcp.api.spi.ToolCacheProvider"));
        assertEquals(List.of("file"), providerIds(layer, "mcp.api.spi.AuthStorage"));
        assertEquals(Set.of("browser", "headless"), Set.copyOf(providerIds(layer, "mcp.api.spi.AuthorizationUi")));
        assertEquals(List.of("native", "claude", "codex", "gemini", "opencode", "goose", "cursor", "windsurf", "kiro",
                "zed", "claude-desktop", "vscode", "mcp-json"),
                providerIds(layer, "mcp.api.spi.CapabilitySource"));
        assertEquals(List.of("enabled", "project", "exa"), providerIds(layer, "mcp.api.spi.ConfigFilter"));
    }

    /**
     * Requiring {@code mcp.host.defaults} is enough: resolved without service binding, as jlink does unless told
     * {@code --bind-services}, its graph holds a provider of every kind the host looks up by default.
     */
    @Test
    void theDefaultsModuleBringsTheDefaultProvidersWithoutBinding() throws Exception {
        ModuleLayer layer = layerOf(Set.of("mcp.host.defaults"), false);
        assertEquals(Set.of("stdio", "http", "sse"), Set.copyOf(providerIds(layer, "mcp.api.spi.TransportProvider")));
        assertEquals(List.of("file"), providerIds(layer, "mcp.api.spi.ToolCacheProvider"));
        assertEquals(List.of("file"), providerIds(layer, "mcp.api.spi.AuthStorage"));
        assertEquals(List.of("values"), providerIds(layer, "mcp.api.spi.AuthResolver"));
        assertTrue(layer.findModule("com.ethlo.time").isPresent(), "the validator's date-time module");
    }

    /** The library is a library: neither the command line, nor a logging backend, nor the test servers. */
    @Test
    void theHostModuleBringsNoCommandLineNoLoggingBackendAndNoTestServer() throws Exception {
        for (String root : List.of("mcp.host", "mcp.host.defaults")) {
            Set<String> names = layerOf(Set.of(root), false).modules().stream().map(Module::getName)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertTrue(names.contains("mcp.host"), names.toString());
            for (String name : names) {
                assertFalse(name.startsWith("info.picocli") || name.startsWith("org.tinylog")
                        || name.equals("mcp.testkit") || name.equals("mcp.cli") || name.equals("org.slf4j.simple")
                        || CLASS_PATH_ADAPTERS.contains(name) || name.startsWith("langchain4j")
                        || name.startsWith("spring"),
                        root + " reads " + name + ": " + names);
            }
        }
    }

    /**
     * OpenTelemetry is optional: of the libraries only {@code mcp.protocol} names its API, and only as {@code requires
     * static}, so a graph resolved from the host or the gateway holds none of it. The command ({@code mcp.cli}) alone
     * brings the SDK, as one named module, into its runtime image.
     */
    @Test
    void openTelemetryIsAnOptionalDependencyOnly() throws Exception {
        for (Path jar : ourJars()) {
            ModuleDescriptor descriptor = descriptor(jar);
            for (ModuleDescriptor.Requires requires : descriptor.requires()) {
                if (requires.name().startsWith("io.opentelemetry") && !descriptor.name().equals("mcp.cli")) {
                    assertEquals("mcp.protocol", descriptor.name(), descriptor.name() + " requires " + requires);
                    assertTrue(requires.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC),
                            descriptor.name() + " requires " + requires + " without static");
                }
            }
        }
        assertTrue(descriptor(ourJars().stream().filter(j -> j.getFileName().toString().startsWith("mcp.protocol-"))
                .findFirst().orElseThrow()).requires().stream().anyMatch(r -> r.name().equals("io.opentelemetry.api")),
                "mcp.protocol reads the API when present");
        for (String root : List.of("mcp.host.defaults", "mcp.gateway")) {
            Set<String> names = layerOf(Set.of(root), false).modules().stream().map(Module::getName)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertTrue(names.stream().noneMatch(name -> name.startsWith("io.opentelemetry")), root + ": " + names);
        }
        ModuleDescriptor bundle = descriptor(pathEntries().stream()
                .filter(p -> p.getFileName().toString().startsWith("io.opentelemetry.api-")).findFirst()
                .orElseThrow(() -> new AssertionError("the OpenTelemetry module of the image is not on the path")));
        assertFalse(bundle.isAutomatic(), "jlink takes named modules only");
        assertTrue(bundle.packages().contains("io.opentelemetry.sdk.autoconfigure"), "autoconfigure is in it");
        assertTrue(bundle.provides().stream().anyMatch(p -> p.service().endsWith("HttpSenderProvider")),
                "the JDK HTTP sender is provided");
    }

    /** A layer over every jar of this test's paths, resolved from the roots, with or without service binding. */
    private static ModuleLayer layerOf(Set<String> roots, boolean bind) {
        ModuleFinder finder = ModuleFinder.of(pathEntries().stream().filter(p -> p.toString().endsWith(".jar"))
                .toArray(Path[]::new));
        Configuration parent = ModuleLayer.boot().configuration();
        Configuration configuration = bind ? parent.resolveAndBind(finder, ModuleFinder.of(), roots)
                : parent.resolve(finder, ModuleFinder.of(), roots);
        return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    }

    /** The ids of a service's providers in a layer, each from a named module. */
    private static List<String> providerIds(ModuleLayer layer, String service) throws Exception {
        Class<?> spi = layer.findLoader("mcp.api").loadClass(service);
        List<String> ids = new ArrayList<>();
        for (Object provider : ServiceLoader.load(layer, spi)) {
            ids.add((String) spi.getMethod("id").invoke(provider));
            assertTrue(provider.getClass().getModule().isNamed());
        }
        return ids;
    }
}
