package mcp.manager;

import static mcp.manager.McpManager.notConnected;
import static mcp.manager.McpManager.unwrap;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.api.LoadedSkill;
import mcp.api.PromptDefinition;
import mcp.api.PromptResult;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceResult;
import mcp.api.ResourceTemplate;
import mcp.api.ServerSurface;
import mcp.api.SkillEntry;
import mcp.api.SkillFile;
import mcp.api.spi.ToolCache;
import mcp.manager.McpManager.Listing;
import mcp.manager.McpManager.Server;
import mcp.manager.McpManager.Slice;
import mcp.manager.internal.AgentText;
import mcp.manager.internal.ClientThreads;
import mcp.manager.internal.ConfigHash;
import mcp.manager.internal.JvmShutdown;
import mcp.manager.internal.ListenerEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The client surface of one {@link McpManager}: each server's resources, resource templates, prompts and skill
 * entries (listed beside its tools, listed again after a {@code list_changed}, cleaned as tool texts are), the
 * surface view ({@link SurfaceSlice}), the embedder's resource subscriptions, and the operations on them that
 * {@code McpManager}'s public methods delegate to.
 *
 * <p>Package-private rather than {@code .internal}: it works on the manager's own registries ({@code connections},
 * {@code slices}, {@code listings}, of its nested types {@code Server}, {@code Slice}, {@code Listing}) and has no
 * lock of its own: every {@code synchronized (lock)} here is on the manager's lock, which guards its
 * {@code subscriptions} too, and nothing here calls a listener under it that the manager did not call under it
 * before the move ({@link #rebuildSurfaces} runs under it, as it always did).
 */
final class Surfaces {

    // The manager's logger: these lines were the manager's, and a log configuration by logger name still holds.
    private static final Logger LOG = LoggerFactory.getLogger(McpManager.class);
    /** The skills extension's id in a server's capabilities. */
    private static final String SKILLS = "io.modelcontextprotocol/skills";

    private final McpManager manager;
    /** The manager's lock and the registries it guards (the manager's invariants 1 to 7 hold for them). */
    private final Object lock;
    private final Map<String, Server> connections;
    private final Map<String, Slice> slices;
    private final Map<String, Listing> listings;
    private final Optional<ToolCache> cache;
    private final ListenerEvents events;
    private final Duration debounce;
    private final int maxDescription;
    /*
     * The resources each server is subscribed to for the embedder, by server name (guarded by `lock`): what is asked
     * of every connection of that server, so that a reconnect subscribes again. Gone with a disconnect.
     */
    private final Map<String, Set<String>> subscriptions = new LinkedHashMap<>();
    /** The surface slices of `slices` that offer something, in slice order; rebuilt with the view. */
    private volatile List<SurfaceSlice> surfaceView = List.of();

    Surfaces(McpManager manager, Object lock, Map<String, Server> connections, Map<String, Slice> slices,
            Map<String, Listing> listings, Optional<ToolCache> cache, ListenerEvents events, Duration debounce,
            int maxDescription) {
        this.manager = manager;
        this.lock = lock;
        this.connections = connections;
        this.slices = slices;
        this.listings = listings;
        this.cache = cache;
        this.events = events;
        this.debounce = debounce;
        this.maxDescription = maxDescription;
    }

    /**
     * Lists a server's resources, templates and prompts, each only if it declared the capability. Never fails: a
     * list that fails leaves its part empty, with a warning (the tools do not depend on it).
     */
    CompletableFuture<ServerSurface> listSurface(Server server, McpClient client) {
        JsonNode capabilities = client.initializeResult().capabilities();
        boolean resources = capabilities.path("resources").isObject();
        boolean prompts = capabilities.path("prompts").isObject();
        CompletableFuture<List<ResourceDefinition>> resourceList = resources
                ? surfacePart(server, "resources", client.listResources()) : CompletableFuture.completedFuture(List.of());
        CompletableFuture<List<ResourceTemplate>> templateList = resources
                ? surfacePart(server, "resource templates", client.listResourceTemplates())
                : CompletableFuture.completedFuture(List.of());
        CompletableFuture<List<PromptDefinition>> promptList = prompts
                ? surfacePart(server, "prompts", client.listPrompts()) : CompletableFuture.completedFuture(List.of());
        // Skill entries only: no file of a skill is read before the agent loads it (SEP-2640: no prefetch).
        CompletableFuture<List<SkillEntry>> skillList = capabilities.path("extensions").path(SKILLS).isObject()
                ? surfacePart(server, "skills", client.listSkills()) : CompletableFuture.completedFuture(List.of());
        return CompletableFuture.allOf(resourceList, templateList, promptList, skillList).thenApply(v -> cleaned(
                server.name, new ServerSurface(resourceList.join(), templateList.join(), promptList.join(),
                        skillList.join())));
    }

    private static <T> CompletableFuture<List<T>> surfacePart(Server server, String what,
            CompletableFuture<List<T>> listing) {
        return listing.exceptionally(error -> {
            if (!server.cancelled && !JvmShutdown.inProgress()) {
                LOG.warn("MCP server \"{}\": listing its {} failed; none are offered: {}", server.name, what,
                        unwrap(error).getMessage());
            }
            return List.of();
        });
    }

    /**
     * A server's resources, templates and prompts with clean and bounded titles and descriptions, as tools have
     * them: they reach the agent's context just the same.
     */
    ServerSurface cleaned(String serverName, ServerSurface surface) {
        List<ResourceDefinition> resources = surface.resources().stream().map(r -> new ResourceDefinition(r.uri(),
                cleaned(serverName, "resource", r.uri(), "name", r.name(), AgentText.MAX_TITLE),
                r.title().map(t -> cleaned(serverName, "resource", r.uri(), "title", t, AgentText.MAX_TITLE)),
                r.description().map(d -> cleaned(serverName, "resource", r.uri(), "description", d, maxDescription)),
                r.mimeType(), r.size(), r.annotations())).toList();
        List<ResourceTemplate> templates = surface.templates().stream().map(t -> new ResourceTemplate(t.uriTemplate(),
                cleaned(serverName, "resource template", t.uriTemplate(), "name", t.name(), AgentText.MAX_TITLE),
                t.title().map(x -> cleaned(serverName, "resource template", t.uriTemplate(), "title", x,
                        AgentText.MAX_TITLE)),
                t.description().map(d -> cleaned(serverName, "resource template", t.uriTemplate(), "description", d,
                        maxDescription)), t.mimeType(), t.annotations())).toList();
        List<PromptDefinition> prompts = surface.prompts().stream().map(p -> new PromptDefinition(p.name(),
                p.title().map(t -> cleaned(serverName, "prompt", p.name(), "title", t, AgentText.MAX_TITLE)),
                p.description().map(d -> cleaned(serverName, "prompt", p.name(), "description", d, maxDescription)),
                p.arguments().stream().map(a -> new PromptDefinition.Argument(a.name(),
                        a.title().map(t -> cleaned(serverName, "prompt", p.name(), a.name() + " title", t,
                                AgentText.MAX_TITLE)),
                        a.description().map(d -> cleaned(serverName, "prompt", p.name(), a.name() + " description", d,
                                maxDescription)), a.required())).toList())).toList();
        return new ServerSurface(resources, templates, prompts, surface.skills());
    }

    void scheduleSurfaceRelist(Server server) {
        synchronized (lock) {
            if (connections.get(server.name) != server) {
                return;
            }
            if (server.surfaceRelist != null) {
                server.surfaceRelist.cancel(false);
            }
            server.surfaceRelist = ClientThreads.TIMERS.schedule(() -> relistSurface(server).exceptionally(error -> {
                LOG.warn("MCP server \"{}\": re-listing its resources and prompts failed: {}", server.name,
                        unwrap(error).getMessage());
                return null;
            }), debounce.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Subscribes a reconnected server's new session to the resources its old one was subscribed to, and reports each
     * as updated: an update may have been missed while it was away.
     */
    void resubscribe(Server server, McpClient client) {
        List<String> uris;
        synchronized (lock) {
            uris = List.copyOf(subscriptions.getOrDefault(server.name, Set.of()));
        }
        for (String uri : uris) {
            client.subscribeResource(uri).whenComplete((v, error) -> {
                if (error != null) {
                    LOG.warn("MCP server \"{}\": subscribing again to {} after the reconnect failed: {}", server.name,
                            uri, unwrap(error).getMessage());
                } else {
                    events.resourceUpdated(server.name, uri);
                }
            });
        }
    }

    /** What {@link McpManager#surfaces} does. */
    List<SurfaceSlice> view() {
        return surfaceView;
    }

    /** What {@link McpManager#surfaceOf} does. */
    Optional<SurfaceSlice> surfaceOf(String name) {
        return surfaceView.stream().filter(slice -> slice.server().equals(name)).findFirst();
    }

    /** The surface of a server's slice now, kept when its tools are listed again. */
    ServerSurface currentSurface(String name) {
        synchronized (lock) {
            Slice slice = slices.get(name);
            return slice == null ? ServerSurface.EMPTY : slice.surface();
        }
    }

    /** What {@link McpManager#refreshServerSurface} does. */
    CompletableFuture<ServerSurface> refreshServerSurface(String name) {
        Server server;
        synchronized (lock) {
            server = connections.get(name);
        }
        if (server == null) {
            return CompletableFuture.failedFuture(notConnected(name));
        }
        return relistSurface(server);
    }

    private CompletableFuture<ServerSurface> relistSurface(Server server) {
        return listSurface(server, server.client).thenApply(surface -> {
            Listing listing;
            synchronized (lock) {
                Slice slice = slices.get(server.name);
                listing = listings.get(server.name);
                if (connections.get(server.name) != server || slice == null || listing == null) {
                    return surface;
                }
                slices.put(server.name, slice.withSurface(surface));
                rebuildSurfaces(server.name);
            }
            // The tools as last listed go with it; their time to live is not known here, so none is kept.
            Optional<String> spoke = Optional.of(server.client.initializeResult().protocolVersion());
            cache.ifPresent(c -> c.write(server.name, ConfigHash.of(server.config),
                    new ToolCache.Entry(listing.tools(), spoke, Optional.empty(), Optional.of(surface))));
            return surface;
        });
    }

    /** What {@link McpManager#readResource} does. */
    CompletableFuture<ResourceResult> readResource(String server, String uri, CallOptions options) {
        Objects.requireNonNull(uri, "uri");
        return onServer(server, options, client -> client.readResource(uri, options));
    }

    /** What {@link McpManager#getPrompt} does. */
    CompletableFuture<PromptResult> getPrompt(String server, String prompt, Map<String, String> arguments,
            CallOptions options) {
        Objects.requireNonNull(prompt, "prompt");
        Map<String, String> copy = Map.copyOf(arguments);
        return onServer(server, options, client -> client.getPrompt(prompt, copy, options));
    }

    /** What {@link McpManager#complete} does. */
    CompletableFuture<CompletionResult> complete(String server, CompletionReference ref, String argument,
            String value, Map<String, String> context) {
        Map<String, String> copy = Map.copyOf(context);
        return onServer(server, CallOptions.DEFAULT, client -> client.complete(ref, argument, value, copy));
    }

    /** What {@link McpManager#subscribeResource} does. */
    CompletableFuture<Void> subscribeResource(String server, String uri) {
        Objects.requireNonNull(uri, "uri");
        boolean added;
        synchronized (lock) {
            added = subscriptions.computeIfAbsent(server, name -> new LinkedHashSet<>()).add(uri);
        }
        return onServer(server, CallOptions.DEFAULT, client -> client.subscribeResource(uri)).whenComplete((v, error) -> {
            // A failed repeat leaves the subscription that holds as it is.
            if (error != null && added) {
                synchronized (lock) {
                    Set<String> uris = subscriptions.get(server);
                    if (uris != null && uris.remove(uri) && uris.isEmpty()) {
                        subscriptions.remove(server);
                    }
                }
            }
        });
    }

    /** What {@link McpManager#unsubscribeResource} does. */
    CompletableFuture<Void> unsubscribeResource(String server, String uri) {
        McpClient client;
        synchronized (lock) {
            Set<String> uris = subscriptions.get(server);
            if (uris == null || !uris.remove(uri)) {
                return CompletableFuture.completedFuture(null);
            }
            if (uris.isEmpty()) {
                subscriptions.remove(server);
            }
            Server connected = connections.get(server);
            client = connected == null ? null : connected.client;
        }
        return client == null ? CompletableFuture.completedFuture(null) : client.unsubscribeResource(uri);
    }

    /** What {@link McpManager#subscribedResources} does. */
    Set<String> subscribedResources(String server) {
        synchronized (lock) {
            return Set.copyOf(subscriptions.getOrDefault(server, Set.of()));
        }
    }

    /** What {@link McpManager#loadSkill} does. */
    CompletableFuture<LoadedSkill> loadSkill(SkillEntry skill) {
        return onServer(skill.server(), CallOptions.DEFAULT, client -> client.loadSkill(skill));
    }

    /** What {@link McpManager#readSkillFile} does. */
    CompletableFuture<SkillFile> readSkillFile(LoadedSkill skill, String reference) {
        return onServer(skill.server(), CallOptions.DEFAULT, client -> client.readSkillFile(skill, reference));
    }

    /** Rebuilds the surface view from the slices and, if it changed, tells the listeners. Called under the lock. */
    void rebuildSurfaces(String changedServer) {
        List<SurfaceSlice> next = new ArrayList<>();
        slices.forEach((name, slice) -> {
            if (!slice.surface().isEmpty()) {
                next.add(new SurfaceSlice(name, slice.deferred(), slice.surface()));
            }
        });
        if (!next.equals(surfaceView)) {
            List<SurfaceSlice> snapshot = List.copyOf(next);
            surfaceView = snapshot;
            events.surfacesChanged(changedServer, snapshot);
        }
    }

    /** The manager's cleaning of a text: it keeps the texts it warned about, tools' and surfaces' alike. */
    private String cleaned(String serverName, String kind, String item, String field, String text, int max) {
        return manager.cleaned(serverName, kind, item, field, text, max);
    }

    /** The manager's wait for a server's client (connecting or reconnecting), bounded by the call's timeout. */
    private <T> CompletableFuture<T> onServer(String name, CallOptions options,
            Function<McpClient, CompletableFuture<T>> call) {
        return manager.onServer(name, options, call);
    }

    /** A server was disconnected: its subscriptions end with it. Called under the lock. */
    void disconnectedLocked(String name) {
        subscriptions.remove(name);
    }

    /** Every server was disconnected. Called under the lock. */
    void clearedLocked() {
        subscriptions.clear();
    }
}
