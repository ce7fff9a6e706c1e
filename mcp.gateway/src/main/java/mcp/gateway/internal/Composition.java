package mcp.gateway.internal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.StdioServerConfig;
import mcp.config.DiscoveryResult;

/**
 * The servers a shared gateway runs for the user and its projects, and what each project sees. Each project's
 * servers are what discovery in that project's directory decides (consent, the owning tools' settings, policies),
 * exactly as {@code mcp-host tools} run there would. A server that a project gets just as the user's own discovery
 * gives it (the same name, config and approved definition) is the user's one process, shared; any other (a project's
 * own server, or a user server the project changes) runs once for that project, under a name of its own
 * ({@code <name>.<8 hex of the project's path>}), in the project's directory, and the project's clients see it by
 * its own name.
 *
 * @param configs every server to run, by the manager's name
 * @param sources where each came from
 * @param pinKeys the key of each one's pinned tools
 * @param views what each project sees
 */
public record Composition(Map<String, ServerConfig> configs, Map<String, SourceMetadata> sources,
        Map<String, String> pinKeys, Map<Path, View> views) {

    /**
     * What a project's clients see.
     *
     * @param servers the manager's names of its servers
     * @param shown the name each is shown by, where it differs
     */
    public record View(Set<String> servers, Map<String, String> shown) {
        /** Copies. */
        public View {
            servers = Set.copyOf(servers);
            shown = Map.copyOf(shown);
        }
    }

    /**
     * @param user the user's own discovery (no project)
     * @param projects each project's discovery, by its directory
     * @return the servers to run and the views
     */
    public static Composition of(DiscoveryResult user, Map<Path, DiscoveryResult> projects) {
        Map<String, ServerConfig> configs = new LinkedHashMap<>(user.configs());
        Map<String, SourceMetadata> sources = new LinkedHashMap<>(user.sources());
        Map<String, String> pinKeys = new LinkedHashMap<>(user.definitions());
        Map<Path, View> views = new LinkedHashMap<>();
        projects.forEach((directory, found) -> {
            Set<String> servers = new LinkedHashSet<>();
            Map<String, String> shown = new LinkedHashMap<>();
            found.configs().forEach((name, config) -> {
                String pinKey = found.definitions().get(name);
                if (config.equals(user.configs().get(name)) && Objects.equals(pinKey, user.definitions().get(name))) {
                    servers.add(name);
                    return;
                }
                String own = ownName(name, directory);
                configs.put(own, inDirectory(config, directory));
                if (found.sources().containsKey(name)) {
                    sources.put(own, found.sources().get(name));
                }
                if (pinKey != null) {
                    pinKeys.put(own, pinKey);
                }
                servers.add(own);
                shown.put(own, name);
            });
            views.put(directory, new View(servers, shown));
        });
        return new Composition(configs, sources, pinKeys, views);
    }

    /**
     * @param held servers (by the manager's name) to run for no one: those a client disabled
     * @return this composition without them
     */
    public Composition without(Set<String> held) {
        if (held.isEmpty()) {
            return this;
        }
        Map<String, ServerConfig> keptConfigs = new LinkedHashMap<>(configs);
        Map<String, SourceMetadata> keptSources = new LinkedHashMap<>(sources);
        Map<String, String> keptPins = new LinkedHashMap<>(pinKeys);
        held.forEach(name -> {
            keptConfigs.remove(name);
            keptSources.remove(name);
            keptPins.remove(name);
        });
        Map<Path, View> keptViews = new LinkedHashMap<>();
        views.forEach((directory, view) -> {
            Set<String> servers = new LinkedHashSet<>(view.servers());
            servers.removeAll(held);
            Map<String, String> shown = new LinkedHashMap<>(view.shown());
            shown.keySet().removeAll(held);
            keptViews.put(directory, new View(servers, shown));
        });
        return new Composition(keptConfigs, keptSources, keptPins, keptViews);
    }

    /** A project's own server's name in the shared manager: its name and a hash of the project's path. */
    static String ownName(String name, Path directory) {
        String tag = "." + sha256(directory.toString()).substring(0, 8);
        String head = name.length() + tag.length() > ServerConfig.MAX_NAME_LENGTH
                ? name.substring(0, ServerConfig.MAX_NAME_LENGTH - tag.length()) : name;
        return head + tag;
    }

    /** An agent starts a project's stdio server in the project; the shared gateway runs elsewhere. */
    private static ServerConfig inDirectory(ServerConfig config, Path directory) {
        if (config instanceof StdioServerConfig stdio) {
            return stdio.withCwd(directory.resolve(stdio.cwd().orElse(".")).normalize().toString());
        }
        return config;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }
}
