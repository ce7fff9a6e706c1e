package mcp.cache.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ServerSurface;
import mcp.api.internal.OwnerOnlyFiles;
import mcp.api.ToolDefinition;
import mcp.api.spi.ToolCache;
import mcp.cache.FileToolCaches;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One JSON file per server in one directory; the rules are documented on {@link FileToolCaches}.
 *
 * <p>Thread-safe without locks: the fields are immutable, every writer has its own temp file, and
 * the rename that publishes it is atomic, so a reader sees either the old file or the new one.
 * Nothing is kept in memory: reads are rare (one per connect).
 */
final class FileToolCache implements ToolCache {

    private static final Logger LOG = LoggerFactory.getLogger(FileToolCache.class);

    /** Names used as they are: portable file-name characters only, and no dot first (hidden, "." or ".."). */
    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}");

    private final Path directory;
    private final Duration ttl;
    private final Clock clock;

    FileToolCache(Path directory, Duration ttl, Clock clock) {
        this.directory = Objects.requireNonNull(directory, "directory");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    Path directory() {
        return directory;
    }

    /** @return the file name of a server's entry: the name itself when safe, else a hash of it */
    static String fileName(String serverName) {
        if (PLAIN_NAME.matcher(serverName).matches()) {
            return serverName + ".json";
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(serverName.getBytes(StandardCharsets.UTF_8));
            return "_" + HexFormat.of().formatHex(digest, 0, 16) + ".json";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    Path file(String serverName) {
        return directory.resolve(fileName(serverName));
    }

    @Override
    public Optional<List<ToolDefinition>> read(String serverName, String configHash) {
        return readEntry(serverName, configHash).map(ToolCache.Entry::tools);
    }

    @Override
    public Optional<ToolCache.Entry> readEntry(String serverName, String configHash) {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(configHash, "configHash");
        Path file = file(serverName);
        try {
            Entry entry = decode(Files.readAllBytes(file), serverName);
            if (!entry.configHash().equals(configHash)) {
                LOG.debug("Tool cache miss for MCP server {}: its config changed since {} was saved",
                        quoted(serverName), file);
                return Optional.empty();
            }
            // Duration.between cannot overflow (instants span less than Long.MAX_VALUE seconds); plus() could.
            if (Duration.between(entry.savedAt(), clock.instant()).compareTo(ttl) > 0) {
                LOG.debug("Tool cache miss for MCP server {}: {} expired (saved {}, valid for {})",
                        quoted(serverName), file, entry.savedAt(), ttl);
                return Optional.empty();
            }
            LOG.debug("Tool cache hit for MCP server {}: {} tools from {}", quoted(serverName), entry.tools().size(),
                    file);
            return Optional.of(new ToolCache.Entry(entry.tools(), entry.protocolVersion(), entry.freshness(),
                    entry.surface()));
        } catch (NoSuchFileException e) {
            LOG.debug("Tool cache miss for MCP server {}: no file {}", quoted(serverName), file);
        } catch (InvalidEntry e) {
            LOG.warn("Ignoring tool cache file {} of MCP server {}: {}", file, quoted(serverName), e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Ignoring tool cache file {} of MCP server {}: it could not be read: {}", file,
                    quoted(serverName), reason(e));
        }
        return Optional.empty();
    }

    @Override
    public void write(String serverName, String configHash, List<ToolDefinition> tools) {
        write(serverName, configHash, tools, Optional.empty());
    }

    @Override
    public void write(String serverName, String configHash, List<ToolDefinition> tools,
            Optional<String> protocolVersion) {
        write(serverName, configHash, new ToolCache.Entry(tools, protocolVersion));
    }

    @Override
    public void write(String serverName, String configHash, ToolCache.Entry entry) {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(configHash, "configHash");
        Objects.requireNonNull(entry, "entry");
        Path file = file(serverName);
        try {
            OwnerOnlyFiles.replace(file, encode(serverName, configHash, entry), file.getFileName() + ".");
            LOG.debug("Saved {} tools of MCP server {} to {}", entry.tools().size(), quoted(serverName), file);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not write tool cache file {} of MCP server {}: {}", file, quoted(serverName), reason(e));
        }
    }

    @Override
    public void remove(String serverName) {
        Objects.requireNonNull(serverName, "serverName");
        Path file = file(serverName);
        try {
            if (Files.deleteIfExists(file)) {
                LOG.debug("Removed tool cache file {} of MCP server {}", file, quoted(serverName));
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not remove tool cache file {} of MCP server {}: {}", file, quoted(serverName), reason(e));
        }
    }

    private byte[] encode(String serverName, String configHash, ToolCache.Entry entry) {
        ObjectNode root = McpJson.object();
        root.put("version", FileToolCaches.FORMAT_VERSION);
        root.put("server", serverName);
        root.put("configHash", configHash);
        root.put("savedAt", clock.instant().toString());
        entry.protocolVersion().ifPresent(version -> root.put("protocolVersion", version));
        entry.freshness().ifPresent(fresh -> root.putObject("fresh").put("until", fresh.until().toString())
                .put("scope", fresh.shared() ? "public" : "private").put("context", fresh.context()));
        ArrayNode array = root.putArray("tools");
        entry.tools().forEach(tool -> array.add(tool.toJson()));
        entry.surface().ifPresent(surface -> root.set("surface", surface.toJson()));
        return McpJson.mapper().writeValueAsBytes(root);
    }

    /** A well-formed entry; whether it is fresh and for this config is decided by the caller. */
    record Entry(String configHash, Instant savedAt, List<ToolDefinition> tools, Optional<String> protocolVersion,
            Optional<ToolCache.Freshness> freshness, Optional<ServerSurface> surface) {
    }

    /** What is wrong with a file: logged as a warning, never thrown out of the cache. */
    static final class InvalidEntry extends Exception {
        InvalidEntry(String problem) {
            super(problem, null, false, false);
        }
    }

    /** @throws InvalidEntry and nothing else (the fuzz test's property), whatever the bytes */
    static Entry decode(byte[] bytes, String serverName) throws InvalidEntry {
        if (bytes.length == 0) {
            throw new InvalidEntry("it is empty");
        }
        JsonNode root;
        try {
            root = McpJson.mapper().readTree(bytes);
        } catch (JacksonException e) {
            // The file holds only tool definitions (no secrets), so Jackson's message may quote it.
            throw new InvalidEntry("it is not valid JSON: " + abbreviate(e.getOriginalMessage()));
        }
        if (root == null || !root.isObject()) {
            throw new InvalidEntry("it is not a JSON object");
        }
        JsonNode version = root.get("version");
        if (version == null || !version.isIntegralNumber()) {
            throw new InvalidEntry("\"version\" is missing or not an integer");
        }
        if (!version.canConvertToInt() || version.intValue() != FileToolCaches.FORMAT_VERSION) {
            throw new InvalidEntry("it has format version " + version + ", this cache reads only version "
                    + FileToolCaches.FORMAT_VERSION);
        }
        String server = string(root, "server");
        if (!server.equals(serverName)) {
            // Two names can share a file (case-insensitive file systems, hashed names): never mix them up.
            throw new InvalidEntry("it belongs to MCP server " + quoted(server));
        }
        String configHash = string(root, "configHash");
        Instant savedAt;
        try {
            savedAt = Instant.parse(string(root, "savedAt"));
        } catch (DateTimeParseException e) {
            throw new InvalidEntry("\"savedAt\" is not an ISO-8601 instant");
        }
        JsonNode array = root.get("tools");
        if (array == null || !array.isArray()) {
            throw new InvalidEntry("\"tools\" is missing or not an array");
        }
        List<ToolDefinition> tools = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            JsonNode tool = array.get(i);
            JsonNode name = tool.isObject() ? tool.get("name") : null;
            if (name == null || !name.isString()) {
                throw new InvalidEntry("tool " + i + " is not an object with a string \"name\"");
            }
            tools.add(ToolDefinition.fromJson(tool));
        }
        JsonNode protocolVersion = root.get("protocolVersion");
        if (protocolVersion != null && !protocolVersion.isString()) {
            throw new InvalidEntry("\"protocolVersion\" is not a string");
        }
        return new Entry(configHash, savedAt, List.copyOf(tools),
                protocolVersion == null ? Optional.empty() : Optional.of(protocolVersion.asString()),
                freshness(root.get("fresh")), surface(server, root.get("surface")));
    }

    private static Optional<ServerSurface> surface(String server, JsonNode surface) throws InvalidEntry {
        if (surface == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(ServerSurface.fromJson(server, surface));
        } catch (McpException e) {
            throw new InvalidEntry("\"surface\" is invalid: " + abbreviate(e.getMessage()));
        }
    }

    private static Optional<ToolCache.Freshness> freshness(JsonNode fresh) throws InvalidEntry {
        if (fresh == null) {
            return Optional.empty();
        }
        if (!fresh.isObject()) {
            throw new InvalidEntry("\"fresh\" is not an object");
        }
        String scope = string(fresh, "scope");
        if (!scope.equals("public") && !scope.equals("private")) {
            throw new InvalidEntry("\"fresh.scope\" is neither \"public\" nor \"private\"");
        }
        try {
            return Optional.of(new ToolCache.Freshness(Instant.parse(string(fresh, "until")), scope.equals("public"),
                    string(fresh, "context")));
        } catch (DateTimeParseException e) {
            throw new InvalidEntry("\"fresh.until\" is not an ISO-8601 instant");
        }
    }

    private static String string(JsonNode root, String field) throws InvalidEntry {
        JsonNode value = root.get(field);
        if (value == null || !value.isString()) {
            throw new InvalidEntry("\"" + field + "\" is missing or not a string");
        }
        return value.asString();
    }

    /**
     * A server name for a log line: in quotes, with control characters escaped, because names come
     * from config files (a cloned project's too) and must not be able to forge log lines.
     */
    static String quoted(String name) {
        StringBuilder out = new StringBuilder(name.length() + 2).append('"');
        for (char c : name.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static String reason(Exception e) {
        // FileSystemException messages already name the file(s) and the OS reason; the package adds nothing.
        String type = e.getClass().getSimpleName();
        return e.getMessage() == null ? type : type + ": " + e.getMessage();
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
