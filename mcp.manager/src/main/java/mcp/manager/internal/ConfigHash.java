package mcp.manager.internal;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;

/**
 * The tool cache key of a config (SPEC §8): the SHA-256 of the canonical JSON of the
 * <em>unresolved</em> config, keys sorted, absent and empty values dropped. Secrets resolved at
 * connect time never enter it, so the key stays stable when a token rotates.
 */
public final class ConfigHash {

    private ConfigHash() {
    }

    /**
     * @param config an unresolved config
     * @return its hash, 64 lower-case hex digits
     */
    public static String of(ServerConfig config) {
        return Sha256.hex(canonicalJson(config));
    }

    static String canonicalJson(ServerConfig config) {
        Map<String, Object> json = new TreeMap<>();
        json.put("type", config.type());
        if (config instanceof StdioServerConfig stdio) {
            json.put("command", stdio.command());
            putIfNotEmpty(json, "args", stdio.args());
            putIfNotEmpty(json, "env", new TreeMap<>(stdio.env()));
            stdio.inheritedEnv().ifPresent(names -> json.put("inheritedEnv", new TreeSet<>(names)));
            stdio.cwd().ifPresent(cwd -> json.put("cwd", cwd));
        } else if (config instanceof HttpServerConfig http) {
            json.put("url", http.url());
            putIfNotEmpty(json, "headers", new TreeMap<>(http.headers()));
            putHelper(json, http.headerCommands());
        } else if (config instanceof SseServerConfig sse) {
            json.put("url", sse.url());
            putIfNotEmpty(json, "headers", new TreeMap<>(sse.headers()));
            putHelper(json, sse.headerCommands());
        }
        json.put("timeout", config.timeout().toMillis());
        json.put("enabled", config.enabled());
        config.auth().ifPresent(auth -> {
            // Option values as written (references, not resolved secrets), so that a changed client counts.
            Map<String, Object> ref = new TreeMap<>(Map.of("type", auth.type(), "credentialId", auth.credentialId()));
            if (!auth.options().isEmpty()) {
                ref.put("options", new TreeMap<>(auth.options()));
            }
            json.put("auth", ref);
        });
        config.enabledTools().ifPresent(tools -> json.put("enabledTools", tools));
        putIfNotEmpty(json, "disabledTools", config.disabledTools());
        if (!config.protocolVersion().equals(ServerConfig.AUTO_PROTOCOL_VERSION)) {
            // Only when pinned, so that the hash of every config that pins nothing stays what it was.
            json.put("protocolVersion", config.protocolVersion());
        }
        return McpJson.mapper().writeValueAsString(json);
    }

    /** Only when there is one, so that the hash of every config without a helper stays what it was. */
    private static void putHelper(Map<String, Object> json, mcp.api.HeaderCommands commands) {
        commands.helper().ifPresent(helper -> {
            Map<String, Object> written = new TreeMap<>(Map.of("command", helper.command()));
            helper.directory().ifPresent(directory -> written.put("directory", directory));
            json.put("headersHelper", written);
        });
    }

    private static void putIfNotEmpty(Map<String, Object> json, String key, Object value) {
        boolean empty = value instanceof Map<?, ?> map ? map.isEmpty() : ((java.util.Collection<?>) value).isEmpty();
        if (!empty) {
            json.put(key, value);
        }
    }
}
