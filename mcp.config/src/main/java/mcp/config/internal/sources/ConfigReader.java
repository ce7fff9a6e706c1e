package mcp.config.internal.sources;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;
import mcp.api.ConsultedFile;
import mcp.api.McpJson;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.toml.TomlMapper;

/**
 * Reads one config file into a tree, turning every way it can fail into a problem that names the
 * file: a missing file is silent, everything else is one problem and an empty result. A symbolic link
 * in the file's place that leads nowhere (dangling) or to itself (a loop) is not a missing file: it is
 * reported, with where it points. Every read is noted in the findings as a {@link ConsultedFile}, missing
 * files too, so that a host watching its configs knows what to watch.
 */
final class ConfigReader {

    /**
     * Config files are hand-edited: comments and trailing commas are common (VS Code and Cursor write
     * JSONC), and refusing them would drop every server of the file. Duplicate keys: last wins.
     */
    private static final JsonMapper JSON = McpJson.mapper().rebuild()
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS, JsonReadFeature.ALLOW_TRAILING_COMMA)
            // Two documents pasted into one file are an error, not "the first one".
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private static final TomlMapper TOML = TomlMapper.builder()
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();

    /**
     * A bound on memory. {@code ~/.claude.json} keeps Claude Code's per-project history and can grow
     * to megabytes, so the bound is generous; a bigger file is not a config file.
     */
    static final long MAX_BYTES = 64L * 1024 * 1024;

    /** Jackson appends a location to some messages; the problem has its own, and the text is noise. */
    private static final Pattern START_MARKER = Pattern.compile("\\s*\\(start marker at \\[Source:[^\\]]*\\]\\)");
    private static final Pattern SOURCE = Pattern.compile("\\s*\\[Source:[^\\]]*\\]");
    private static final int MAX_MESSAGE = 200;

    private ConfigReader() {
    }

    /**
     * @param file the file to read
     * @param findings where problems go, and the file as consulted
     * @return the top-level object, or empty when the file is missing, empty, or had a problem
     */
    static Optional<ObjectNode> read(ConfigFile file, Findings findings) {
        Path path = file.path();
        byte[] bytes;
        try {
            if (!Files.exists(path)) {
                Optional<String> broken = brokenLink(path);
                return broken.isPresent() ? cannotRead(file, findings, broken.get()) : missing(file, findings);
            }
            if (Files.isDirectory(path)) {
                return cannotRead(file, findings, "it is a directory");
            }
            // A FIFO or device would block or never end: never open one.
            if (!Files.isRegularFile(path)) {
                return cannotRead(file, findings, "it is not a regular file");
            }
            if (Files.size(path) > MAX_BYTES) {
                return cannotRead(file, findings, "it is larger than " + (MAX_BYTES >> 20) + " MiB");
            }
            bytes = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            return missing(file, findings); // deleted between the check and the read: same as missing
        } catch (IOException | SecurityException e) {
            return cannotRead(file, findings, reason(e));
        }
        return parse(file, bytes, findings);
    }

    private static Optional<ObjectNode> parse(ConfigFile file, byte[] bytes, Findings findings) {
        JsonNode root;
        try {
            root = file.format() == Format.YAML ? YamlTree.read(bytes) : mapper(file.format()).readTree(bytes);
        } catch (JacksonException e) {
            return unreadable(file, findings, position(e.getLocation()),
                    "invalid " + file.format().displayName() + ": " + message(e));
        } catch (YamlTree.Unreadable e) {
            return unreadable(file, findings, position(e.location()), "invalid YAML: " + e.getMessage());
        }
        if (root != null && !root.isMissingNode() && !root.isObject()) {
            return unreadable(file, findings, "", "the top level must be " + file.format().anObject()
                    + ", got " + ServerEntry.describe(root, file.format()));
        }
        findings.consulted(new ConsultedFile(file.path(), ConsultedFile.State.READ));
        if (root == null || root.isMissingNode()) {
            return Optional.empty(); // an empty file (or only comments): nothing configured yet
        }
        return Optional.of((ObjectNode) root);
    }

    private static Optional<ObjectNode> missing(ConfigFile file, Findings findings) {
        findings.consulted(new ConsultedFile(file.path(), ConsultedFile.State.MISSING));
        return Optional.empty();
    }

    private static ObjectMapper mapper(Format format) {
        return format == Format.TOML ? TOML : JSON;
    }

    /**
     * Only the original message: the TOML module puts the source text into getMessage() even with
     * INCLUDE_SOURCE_IN_LOCATION disabled, and the text may hold a secret. For YAML, snakeyaml's
     * problem alone ("expected ',' or ']', but got :"): its message also quotes the source lines around
     * the error, and starts with the context ("while parsing a block mapping"), which says less.
     */
    private static String message(JacksonException e) {
        if (e.getCause() instanceof MarkedYamlEngineException) {
            String problem = ((MarkedYamlEngineException) e.getCause()).getProblem();
            if (problem != null && !problem.isBlank()) {
                return clean(problem);
            }
        }
        return clean(e.getOriginalMessage());
    }

    /**
     * @param path a path that does not exist when followed
     * @return why, when it is a symbolic link that leads nowhere or into a loop; empty for a plain missing file
     */
    static Optional<String> brokenLink(Path path) {
        if (!Files.isSymbolicLink(path)) {
            return Optional.empty();
        }
        String target;
        try {
            target = Files.readSymbolicLink(path).toString();
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            target = "?"; // the link itself cannot be read: the report still names the file, its target unknown
        }
        try {
            path.toRealPath();
            return Optional.empty(); // created in between: the caller reads it next time
        } catch (NoSuchFileException e) {
            return Optional.of("it is a dangling symbolic link (to " + target + ", which does not exist)");
        } catch (java.nio.file.FileSystemLoopException e) {
            return Optional.of("it is a symbolic link in a loop (to " + target + ")");
        } catch (FileSystemException e) {
            String why = e.getReason() == null ? "" : e.getReason();
            return Optional.of(why.toLowerCase(java.util.Locale.ROOT).contains("levels of symbolic links")
                    ? "it is a symbolic link in a loop (to " + target + ")"
                    : "it is a symbolic link to " + target + ", which cannot be followed: " + why);
        } catch (IOException | SecurityException e) {
            return Optional.of("it is a symbolic link to " + target + ", which cannot be followed: " + e.getMessage());
        }
    }

    private static Optional<ObjectNode> cannotRead(ConfigFile file, Findings findings, String reason) {
        return unreadable(file, findings, "", "cannot be read: " + reason);
    }

    /** A file whose content as a whole is unknown: one problem, and the file noted as such. */
    private static Optional<ObjectNode> unreadable(ConfigFile file, Findings findings, String location,
            String message) {
        findings.problem(file.path(), location, "", message);
        findings.consulted(new ConsultedFile(file.path(), ConsultedFile.State.UNREADABLE));
        return Optional.empty();
    }

    private static String reason(Exception e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
            return ((FileSystemException) e).getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** @return {@code line:column}, 1-based as Jackson reports them, or {@code ""} when unknown */
    static String position(TokenStreamLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return location.getLineNr() + (location.getColumnNr() >= 1 ? ":" + location.getColumnNr() : "");
    }

    private static String clean(String message) {
        if (message == null || message.isBlank()) {
            return "unreadable content";
        }
        String text = SOURCE.matcher(START_MARKER.matcher(message).replaceAll("")).replaceAll("").strip();
        int newline = text.indexOf('\n');
        if (newline >= 0) {
            text = text.substring(0, newline).strip();
        }
        return text.length() > MAX_MESSAGE ? text.substring(0, MAX_MESSAGE) + "..." : text;
    }
}
