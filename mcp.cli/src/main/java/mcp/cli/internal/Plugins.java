package mcp.cli.internal;

import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolutionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.ProviderException;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.ConfigFilter;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.host.McpHost;
import mcp.search.spi.ToolRankerProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command's plugins: modular (or plain) jars in the user's plugin folder and on {@code --plugin-path}, loaded
 * into a module layer of their own at run time, so that neither the launcher nor {@code java}'s options need to
 * change. Their capability sources, config filters, transports, auth resolvers and tool search ranker are handed to
 * the host's builder as instances.
 *
 * <p>The layer resolves a plugin's {@code requires} against the command's own modules first: a jar of mcp-host's
 * (such as {@code mcp.api}) dropped into the folder is ignored rather than loaded twice, which would give the
 * plugin service types that the host does not know.
 */
final class Plugins {

    private static final Logger LOG = LoggerFactory.getLogger(Plugins.class);

    /** No plugin at all: nothing found, nothing loaded. */
    static final Plugins NONE = new Plugins(List.of(), null);

    private final List<Path> entries;
    private final ModuleLayer layer;

    private Plugins(List<Path> entries, ModuleLayer layer) {
        this.entries = List.copyOf(entries);
        this.layer = layer;
    }

    /**
     * Loads the plugins of the given folders and jars (a folder holds jars; a missing default folder is no plugin).
     *
     * @param folder the user's plugin folder, used when it exists
     * @param pluginPath the {@code --plugin-path} entries, each a folder or a jar that must exist
     * @return the plugins
     * @throws CliException a usage error naming the path when an entry is missing, or a jar is broken or needs a
     *     module that is not there
     */
    static Plugins load(Path folder, List<Path> pluginPath) {
        List<Path> entries = new ArrayList<>();
        if (Files.isDirectory(folder)) {
            entries.add(folder);
        }
        for (Path entry : pluginPath) {
            if (!Files.exists(entry)) {
                throw CliException.usage("--plugin-path " + entry + ": no such file or directory");
            }
            entries.add(entry);
        }
        if (entries.isEmpty() || entries.stream().noneMatch(Plugins::holdsJars)) {
            return NONE;
        }
        ModuleLayer boot = Plugins.class.getModule().getLayer() != null ? Plugins.class.getModule().getLayer()
                : ModuleLayer.boot();
        ModuleFinder finder = ModuleFinder.of(entries.toArray(Path[]::new));
        Set<ModuleReference> found;
        try {
            found = finder.findAll();
        } catch (FindException e) {
            throw CliException.usage("A plugin could not be read (" + describe(entries) + "): " + message(e));
        }
        Set<String> ours = boot.modules().stream().map(Module::getName).collect(Collectors.toSet());
        Set<String> roots = new TreeSet<>();
        for (ModuleReference reference : found) {
            String name = reference.descriptor().name();
            if (ours.contains(name)) {
                LOG.warn("Plugin folder: {} ({}) is a module of mcp-host itself; ignored",
                        name, reference.location().map(Object::toString).orElse("?"));
            } else {
                roots.add(name);
            }
        }
        if (roots.isEmpty()) {
            return new Plugins(entries, null);
        }
        try {
            // The plugins' finder comes after the parent: a plugin's requires find mcp-host's own modules first.
            Configuration configuration = boot.configuration().resolve(ModuleFinder.of(), finder, roots);
            ModuleLayer layer = boot.defineModulesWithOneLoader(configuration, Plugins.class.getClassLoader());
            LOG.debug("Plugins loaded from {}: {}", describe(entries), roots);
            return new Plugins(entries, layer);
        } catch (FindException | ResolutionException | LayerInstantiationException e) {
            throw CliException.usage("The plugins (" + describe(entries) + ") could not be loaded: " + message(e)
                    + ". A plugin needs its own dependencies beside it, in the same folder or on --plugin-path.");
        }
    }

    /**
     * Adds the plugins' providers to a host builder. ServiceLoader's built-in providers are still loaded; two
     * providers with one id fail as they do on the module path.
     *
     * @param builder the builder
     * @return the builder
     * @throws CliException a usage error when a plugin's provider cannot be created
     */
    McpHost.Builder addTo(McpHost.Builder builder) {
        if (layer == null) {
            return builder;
        }
        try {
            Providers.load(CapabilitySource.class, layer).forEach(builder::capabilitySource);
            Providers.load(ConfigFilter.class, layer).forEach(builder::configFilter);
            Providers.load(TransportProvider.class, layer).forEach(builder::transportProvider);
            Providers.load(AuthResolver.class, layer).forEach(builder::authResolver);
            // Tool search's ranker (an embedding model: docs/embeddings.md); one at most, as on the module path.
            List<ToolRankerProvider> rankers = Providers.load(ToolRankerProvider.class, layer);
            if (rankers.size() > 1) {
                throw new ProviderException("More than one tool search ranker is in the plugins (" + rankers.stream()
                        .map(ToolRankerProvider::id).collect(Collectors.joining(", ")) + "): keep one.");
            }
            rankers.forEach(builder::toolRanker);
        } catch (ProviderException e) {
            throw CliException.usage(e.getMessage());
        }
        return builder;
    }

    /** @return the plugin modules loaded, by name */
    Set<String> modules() {
        return layer == null ? Set.of()
                : layer.modules().stream().map(Module::getName).collect(Collectors.toCollection(TreeSet::new));
    }

    /** @return the folders and jars searched */
    List<Path> entries() {
        return entries;
    }

    private static boolean holdsJars(Path entry) {
        if (!Files.isDirectory(entry)) {
            return true;
        }
        try (Stream<Path> children = Files.list(entry)) {
            return children.anyMatch(child -> child.getFileName().toString().endsWith(".jar")
                    || Files.isRegularFile(child.resolve("module-info.class")));
        } catch (IOException e) {
            throw CliException.usage("The plugin folder " + entry + " cannot be read: " + e.getMessage());
        }
    }

    private static String describe(List<Path> entries) {
        return entries.stream().map(Path::toString).collect(Collectors.joining(", "));
    }

    private static String message(RuntimeException e) {
        return Optional.ofNullable(e.getMessage()).orElse(e.toString());
    }
}
