package mcp.api.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Function;
import mcp.api.ProviderException;

/**
 * The one place where mcp-host looks services up with {@link ServiceLoader}. Lookups take an
 * explicit class loader (never the thread context loader by accident), and every failure is loud:
 * a broken provider, two providers with one id, or a missing id throws a {@link ProviderException}
 * that lists what was found and says what to add.
 */
public final class Providers {

    /** Which module provides the built-in ids, for the "what to add" part of a message. */
    private static final Map<String, String> BUILT_IN_MODULES = Map.of(
            "stdio", "mcp.transport.stdio",
            "http", "mcp.transport.http",
            "sse", "mcp.transport.http",
            "file", "mcp.cache",
            "browser", "mcp.auth",
            "headless", "mcp.auth");

    /** Built-in ids that more than one service uses, by service: the {@code file} auth storage. */
    private static final Map<String, String> BUILT_IN_AUTH_STORAGE = Map.of("file", "mcp.auth");

    private Providers() {
    }

    /**
     * Loads every provider of a service visible from the module layer of this module and from the
     * class path of the given loader.
     *
     * @param service the service interface: one of those in this package, or another module's exported one (such
     *     as {@code mcp.search.spi.ToolRankerProvider})
     * @param loader the class loader whose class path is searched too
     * @param <T> the service type
     * @return the providers, in ServiceLoader order
     * @throws ProviderException if a provider cannot be loaded or instantiated
     */
    public static <T> List<T> load(Class<T> service, ClassLoader loader) {
        Objects.requireNonNull(service, "service");
        // A service of a module that mcp.api cannot name without depending on it (mcp.search's ranker): its user
        // declares `uses`, but ServiceLoader checks the module that calls it, this one.
        Module self = Providers.class.getModule();
        if (!self.canUse(service)) {
            self.addUses(service);
        }
        List<T> found = new ArrayList<>();
        try {
            for (T provider : ServiceLoader.load(service, loader)) {
                found.add(provider);
            }
        } catch (ServiceConfigurationError e) {
            throw new ProviderException("A " + service.getSimpleName() + " provider could not be loaded: "
                    + e.getMessage() + ". Fix or remove the module or jar that declares it.", e);
        }
        return found;
    }

    /**
     * Loads the providers of a service that the modules of one layer declare, not those of its parent
     * layers: the plugins of a layer that an application created at run time (the {@code mcp-host}
     * command's plugin folder), which it then passes to the host's builder as instances.
     *
     * @param service the service interface, one of those in this package
     * @param layer the layer whose own modules are searched
     * @param <T> the service type
     * @return the providers, in ServiceLoader order
     * @throws ProviderException if a provider cannot be loaded or instantiated
     */
    public static <T> List<T> load(Class<T> service, ModuleLayer layer) {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(layer, "layer");
        Module self = Providers.class.getModule();
        if (!self.canUse(service)) {
            self.addUses(service);
        }
        List<T> found = new ArrayList<>();
        try {
            ServiceLoader.load(layer, service).stream()
                    .filter(provider -> provider.type().getModule().getLayer() == layer)
                    .forEach(provider -> found.add(provider.get()));
        } catch (ServiceConfigurationError e) {
            throw new ProviderException("A " + service.getSimpleName() + " provider could not be loaded: "
                    + e.getMessage() + ". Fix or remove the module or jar that declares it.", e);
        }
        return found;
    }

    /**
     * Indexes providers by id.
     *
     * @param service the service interface, for messages
     * @param providers the providers
     * @param id how to read a provider's id
     * @param <T> the service type
     * @return the providers by id, in the given order
     * @throws ProviderException if two providers have one id
     */
    public static <T> Map<String, T> byId(Class<T> service, List<T> providers, Function<T, String> id) {
        Map<String, T> byId = new LinkedHashMap<>();
        for (T provider : providers) {
            String key = id.apply(provider);
            T previous = byId.putIfAbsent(key, provider);
            if (previous != null) {
                throw new ProviderException("Two " + service.getSimpleName() + " providers have the id \"" + key
                        + "\": " + previous.getClass().getName() + " and " + provider.getClass().getName()
                        + ". Remove one from the module path, or pass the one you want explicitly and turn "
                        + "ServiceLoader discovery off.");
            }
        }
        return byId;
    }

    /**
     * Picks the provider of one id.
     *
     * @param service the service interface, for messages
     * @param byId the providers by id
     * @param id the id needed
     * @param <T> the service type
     * @return the provider
     * @throws ProviderException if there is none, naming the ids found and the module to add
     */
    public static <T> T require(Class<T> service, Map<String, T> byId, String id) {
        T provider = byId.get(id);
        if (provider != null) {
            return provider;
        }
        String module = service == AuthStorage.class ? BUILT_IN_AUTH_STORAGE.get(id) : BUILT_IN_MODULES.get(id);
        String hint = module == null
                ? "Add a module that provides it, or pass a provider instance explicitly."
                : "Add the module " + module + " (module path entry; --add-modules " + module
                        + " in a jlink image), or pass a provider instance explicitly.";
        throw new ProviderException("No " + service.getSimpleName() + " with id \"" + id + "\"; found: "
                + (byId.isEmpty() ? "none" : String.join(", ", byId.keySet())) + ". " + hint);
    }
}
