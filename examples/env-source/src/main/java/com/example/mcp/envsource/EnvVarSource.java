package com.example.mcp.envsource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.spi.CapabilitySource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Reads MCP server configs from the environment variable {@value #VARIABLE}, a JSON object of
 * servers by name:
 *
 * <pre>{@code
 * MCP_HOST_SERVERS='{"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
 *                    "search": {"url": "https://search.example.com/mcp", "headers": {"Authorization": "${SEARCH_TOKEN}"}}}'
 * }</pre>
 *
 * <p>Fields: {@code type}, {@code command}, {@code args}, {@code env}, {@code cwd}, {@code url},
 * {@code headers}; anything else is ignored. Entries are taken as written: mcp-host expands
 * {@code ${VAR}}, filters, validates and merges them like those of any other source.
 *
 * <p>Handy in containers and CI, where writing a config file is more trouble than setting a
 * variable. Priority {@value #PRIORITY}: above every built-in tool's file (an explicit variable is
 * the most deliberate setting), below mcp-host's own config (100).
 */
public final class EnvVarSource implements CapabilitySource {

    /** The environment variable read. */
    public static final String VARIABLE = "MCP_HOST_SERVERS";

    /** This source's priority. */
    public static final int PRIORITY = 90;

    // No file: the metadata has no path. USER level, since the variable is the user's own setting
    // (so "project config off" does not drop it).
    private static final SourceMetadata SOURCE =
            new SourceMetadata("env", "Environment variable", Optional.empty(), SourceMetadata.Level.USER);

    // A Problem must name a file. "$MCP_HOST_SERVERS" is not a real path, but it is what a person
    // should look at, and it reads well in "<file>:<line>:<column>: <message>".
    private static final Path PSEUDO_FILE = Path.of("$" + VARIABLE);

    /** For {@link java.util.ServiceLoader}: a provider needs a public no-argument constructor. */
    public EnvVarSource() {
    }

    @Override
    public String id() {
        return "env";
    }

    @Override
    public String displayName() {
        return "Environment variable";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Result discover(Context context) {
        // Read from the context, never System.getenv(): the host (and tests) decide the environment.
        String json = context.environment().get(VARIABLE);
        if (json == null || json.isBlank()) {
            return new Result(List.of(), List.of()); // not set: silent, like a missing file
        }
        JsonNode root;
        try {
            root = McpJson.mapper().readTree(json);
        } catch (JacksonException e) {
            // McpJson never quotes the input in its messages: the variable may hold secrets.
            String where = e.getLocation() == null ? ""
                    : e.getLocation().getLineNr() + ":" + e.getLocation().getColumnNr();
            return problem(where, "", "Invalid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            return problem("", "", "Expected a JSON object of servers by name");
        }
        List<ServerSpec> servers = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : root.properties()) {
            String name = entry.getKey();
            String pointer = "/" + name.replace("~", "~0").replace("/", "~1"); // a JSON pointer (RFC 6901)
            try {
                servers.add(toSpec(name, pointer, entry.getValue()));
            } catch (IllegalArgumentException e) {
                // One bad entry costs only itself.
                problems.add(new Problem(PSEUDO_FILE, pointer, name, "Server \"" + name + "\": " + e.getMessage()));
            }
        }
        return new Result(servers, problems);
    }

    private static ServerSpec toSpec(String name, String pointer, JsonNode server) {
        if (!server.isObject()) {
            throw new IllegalArgumentException("expected an object");
        }
        // Only what the entry says; everything else (timeout, enabled, auth, the tool lists) is left to
        // mcp-host's defaults, and the values are passed as written.
        return ServerSpec.builder(name, SOURCE)
                .location(pointer)
                .type(text(server, "type"))
                .command(text(server, "command"))
                .args(texts(server, "args"))
                .env(textMap(server, "env"))
                .cwd(text(server, "cwd"))
                .url(text(server, "url"))
                .headers(textMap(server, "headers"))
                .build();
    }

    private static Optional<String> text(JsonNode server, String field) {
        JsonNode value = server.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isString()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a string");
        }
        return Optional.of(value.asString());
    }

    private static List<String> texts(JsonNode server, String field) {
        JsonNode value = server.get(field);
        if (value == null || value.isNull()) {
            return List.of();
        }
        List<String> list = new ArrayList<>();
        if (value.isArray()) {
            for (JsonNode item : value) {
                if (!item.isString()) {
                    break;
                }
                list.add(item.asString());
            }
        }
        if (!value.isArray() || list.size() != value.size()) {
            throw new IllegalArgumentException("\"" + field + "\" must be an array of strings");
        }
        return list;
    }

    private static Map<String, String> textMap(JsonNode server, String field) {
        JsonNode value = server.get(field);
        if (value == null || value.isNull()) {
            return Map.of();
        }
        Map<String, String> map = new LinkedHashMap<>();
        if (value.isObject()) {
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                if (!e.getValue().isString()) {
                    break;
                }
                map.put(e.getKey(), e.getValue().asString());
            }
        }
        if (!value.isObject() || map.size() != value.size()) {
            // The message names the field, never a value: env and header values are often secrets.
            throw new IllegalArgumentException("\"" + field + "\" must be an object of strings");
        }
        return map;
    }

    private static Result problem(String location, String server, String message) {
        return new Result(List.of(), List.of(new Problem(PSEUDO_FILE, location, server, message)));
    }
}
