package mcp.cli.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.internal.Secrets;
import mcp.config.AgentConnection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What {@code connect} leaves for {@code disconnect}: one owner-only file per connected agent file in
 * {@code <state>/connections/}, with the file's original bytes, a hash of the bytes connect wrote, and the servers it
 * moved into which mcp-host config file.
 */
final class Connections {

    private final Path folder;

    Connections(CliContext context) {
        this.folder = context.directories().state().resolve("connections");
    }

    /** The record of one agent's file: {@code <agent>-user.json}, or {@code <agent>-project-<hash of its path>.json}. */
    Path stateFile(String agent, boolean project, Path file) {
        String scope = project ? "project-" + sha256(file.toAbsolutePath().normalize().toString()
                .getBytes(StandardCharsets.UTF_8)).substring(0, 16) : "user";
        return folder.resolve(agent + "-" + scope + ".json");
    }

    /**
     * @param written the SHA-256 of the agent's file as connect left it
     * @param via who wrote it: {@code direct}, or the agent's CLI ({@code claude mcp})
     */
    void save(Path state, AgentConnection.Plan plan, Path ownConfig, String written, String via) {
        ObjectNode record = McpJson.object();
        record.put("agent", plan.agent());
        record.put("file", plan.file().toString());
        record.put("existed", plan.original().isPresent());
        plan.original().ifPresent(bytes -> record.put("original", Base64.getEncoder().encodeToString(bytes)));
        record.put("connectedSha256", written);
        record.put("writtenBy", via);
        record.put("mcpHostConfig", ownConfig.toString());
        record.set("moved", McpJson.mapper().valueToTree(plan.moved()));
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw CliException.usage(folder + ": cannot create: " + e.getMessage() + "; nothing was changed");
        }
        write(state, McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(record)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The record, if the agent's file is connected. */
    Optional<JsonNode> load(Path state) {
        if (!Files.exists(state)) {
            return Optional.empty();
        }
        try {
            return Optional.of(McpJson.mapper().readTree(Files.readString(state)));
        } catch (IOException | RuntimeException e) {
            throw CliException.usage(state + ": cannot read: " + e.getMessage());
        }
    }

    /** Atomically (a temp file beside it, then a rename), owner-only where the file is new. */
    static void write(Path file, byte[] bytes) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            try {
                Files.write(temp, bytes);
                if (Files.exists(file)) {
                    try {
                        Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(file));
                    } catch (UnsupportedOperationException e) {
                        // Not a POSIX file system: the new file keeps the default.
                    }
                } else {
                    try {
                        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
                    } catch (UnsupportedOperationException e) {
                        // As above.
                    }
                }
                try {
                    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILURE, file + ": cannot write: " + e.getMessage());
        }
    }

    /** A server entry in one line, secrets masked: the command line or the URL. */
    static String describe(JsonNode entry) {
        if (entry.has("url")) {
            return Secrets.maskUrl(entry.path("url").asString(""));
        }
        List<String> args = new ArrayList<>();
        entry.path("args").forEach(arg -> args.add(arg.asString("")));
        return Secrets.commandLine(entry.path("command").asString(""), args);
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
