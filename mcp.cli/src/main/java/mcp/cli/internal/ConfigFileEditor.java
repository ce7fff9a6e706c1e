package mcp.cli.internal;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import mcp.api.McpJson;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Edits one native config file ({@code {"mcpServers": {...}}}) the way a person would: every other
 * key and server stays, in its order; only the entry concerned changes. Writes are atomic (a temp
 * file in the same directory, then a rename), so a crash never leaves half a file, and owner-only,
 * since entries may hold secrets in {@code env} or {@code headers}.
 */
final class ConfigFileEditor {

    private static final String SERVERS = "mcpServers";

    private final Path file;
    private final ObjectNode root;
    private final boolean existed;

    private ConfigFileEditor(Path file, ObjectNode root, boolean existed) {
        this.file = file;
        this.root = root;
        this.existed = existed;
    }

    /**
     * Reads the file; a missing (or blank) file is an empty config.
     *
     * @param file the file
     * @return an editor of its content
     * @throws CliException (usage) when the file cannot be read, does not parse, or has the wrong shape
     */
    static ConfigFileEditor open(Path file) {
        if (!Files.exists(file)) {
            return new ConfigFileEditor(file, McpJson.object(), false);
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (CharacterCodingException e) {
            throw CliException.usage(file + ": not UTF-8 text; nothing was written");
        } catch (IOException e) {
            throw CliException.usage(file + ": cannot read: " + e.getMessage());
        }
        if (text.isBlank()) {
            return new ConfigFileEditor(file, McpJson.object(), true);
        }
        JsonNode parsed;
        try {
            parsed = McpJson.mapper().readTree(text);
        } catch (JacksonException e) {
            TokenStreamLocation at = e.getLocation();
            String where = at == null || at.getLineNr() < 0 ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
            throw CliException.usage(file + where + ": not valid JSON: " + e.getOriginalMessage()
                    + "; nothing was written");
        }
        if (!(parsed instanceof ObjectNode object)) {
            throw CliException.usage(file + ": not a JSON object; nothing was written");
        }
        JsonNode servers = object.get(SERVERS);
        if (servers != null && !servers.isObject()) {
            throw CliException.usage(file + ": \"" + SERVERS + "\" is not a JSON object; nothing was written");
        }
        return new ConfigFileEditor(file, object, true);
    }

    Path file() {
        return file;
    }

    /** @return whether the file existed when read */
    boolean existed() {
        return existed;
    }

    /** @return the server entry of that name, if the file has one */
    Optional<JsonNode> server(String name) {
        JsonNode servers = root.get(SERVERS);
        return servers == null ? Optional.empty() : Optional.ofNullable(servers.get(name));
    }

    /** @return the entry of that name as an object to modify */
    ObjectNode serverObject(String name) {
        JsonNode entry = server(name).orElseThrow(() -> CliException.usage(
                "MCP server \"" + name + "\" is not in " + file));
        if (!(entry instanceof ObjectNode object)) {
            throw CliException.usage(file + ": the entry of \"" + name + "\" is not a JSON object; nothing was written");
        }
        return object;
    }

    /** Puts an entry: a new name goes last, an existing one keeps its place. */
    void putServer(String name, ObjectNode entry) {
        servers().set(name, entry);
    }

    /** @return whether there was an entry to remove */
    boolean removeServer(String name) {
        return root.get(SERVERS) != null && servers().remove(name) != null;
    }

    private ObjectNode servers() {
        JsonNode servers = root.get(SERVERS);
        return servers == null ? root.putObject(SERVERS) : (ObjectNode) servers;
    }

    /**
     * Writes the content back: pretty-printed, to an owner-only temp file beside the target, then
     * renamed over it. Missing directories are created owner-only. A symbolic link (dotfiles
     * managers use them) is followed, so the link stays and its target changes.
     */
    void save() {
        try {
            Path target = Files.isSymbolicLink(file) ? file.toRealPath() : file.toAbsolutePath();
            Path directory = target.getParent();
            if (!Files.isDirectory(directory)) {
                Files.createDirectories(directory, ownerOnly("rwx------"));
            }
            String text = McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
            Path temp = Files.createTempFile(directory, "." + target.getFileName() + ".", ".tmp", ownerOnly("rw-------"));
            try {
                Files.writeString(temp, text, StandardCharsets.UTF_8);
                move(temp, target);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw CliException.usage(file + ": cannot write: " + e.getMessage());
        }
    }

    private static void move(Path temp, Path target) throws IOException {
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            // Same directory, so this only happens on exotic file systems; a plain replace is the best left.
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static FileAttribute<?>[] ownerOnly(String permissions) {
        if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return new FileAttribute<?>[0];
        }
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(permissions))};
    }
}
