package mcp.cli.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import mcp.api.McpException;
import mcp.config.AgentConnection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.JsonNode;

/**
 * {@code disconnect AGENT}: undoes {@code connect AGENT}. The agent's file gets its original bytes back when nobody
 * changed it since; otherwise its servers' part is put back as it was and the rest stays as it is now. The servers
 * connect moved are removed from mcp-host's config (those still as connect wrote them).
 */
@Command(name = "disconnect", description = {
    "Undo `mcp-host connect AGENT`: the agent's file as it was (byte for byte when unchanged since), and the servers"
            + " connect moved out of mcp-host's config."})
final class DisconnectCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "AGENT",
            description = "claude, codex, gemini, cursor, vscode, opencode, goose or zed.")
    String agent;

    @Option(names = "--project", description = "The project's connection (connect --project).")
    boolean project;

    @Override
    public Integer call() {
        CliContext context = root.context();
        String name = agent.toLowerCase(Locale.ROOT);
        if (!AgentConnection.AGENTS.contains(name)) {
            throw CliException.usage("disconnect knows " + String.join(", ", AgentConnection.AGENTS) + "; not "
                    + agent);
        }
        Path file;
        try {
            file = AgentConnection.file(name, project, context.home(), context.workingDirectory(), context.io().env());
        } catch (McpException e) {
            throw CliException.usage(e.getMessage());
        }
        Connections connections = new Connections(context);
        Path state = connections.stateFile(name, project, file);
        JsonNode record = connections.load(state).orElseThrow(() -> CliException.usage(name + " is not connected ("
                + file + ")"));
        Optional<byte[]> original = record.path("existed").asBoolean(false)
                ? Optional.of(Base64.getDecoder().decode(record.path("original").asString(""))) : Optional.empty();
        byte[] current;
        try {
            current = Files.exists(file) ? Files.readAllBytes(file) : null;
        } catch (IOException e) {
            throw CliException.usage(file + ": cannot read: " + e.getMessage());
        }
        String how;
        if (current != null && Connections.sha256(current).equals(record.path("connectedSha256").asString(""))) {
            if (original.isPresent()) {
                Connections.write(file, original.get());
            } else {
                try {
                    Files.delete(file);
                } catch (IOException e) {
                    throw new CliException(ExitCodes.FAILURE, file + ": cannot remove: " + e.getMessage());
                }
            }
            how = "as it was, byte for byte";
        } else if (current == null) {
            original.ifPresent(bytes -> Connections.write(file, bytes));
            how = "as it was (it had been removed since)";
        } else {
            try {
                Connections.write(file, AgentConnection.restore(name, current, original));
            } catch (McpException e) {
                throw CliException.usage(file + " changed since connect: " + e.getMessage());
            }
            how = "with its servers as they were (the file changed since connect; the rest stays as it is now)";
        }
        Path ownConfig = Path.of(record.path("mcpHostConfig").asString(""));
        List<String> removed = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        if (Files.exists(ownConfig)) {
            ConfigFileEditor own = ConfigFileEditor.open(ownConfig);
            for (Map.Entry<String, JsonNode> moved : record.path("moved").properties()) {
                Optional<JsonNode> now = own.server(moved.getKey());
                if (now.isPresent() && now.get().equals(moved.getValue())) {
                    own.removeServer(moved.getKey());
                    removed.add(moved.getKey());
                } else if (now.isPresent()) {
                    kept.add(moved.getKey());
                }
            }
            if (!removed.isEmpty()) {
                own.save();
            }
        }
        try {
            Files.delete(state);
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILURE, state + ": cannot remove: " + e.getMessage());
        }
        context.out().println("Disconnected " + name + ": " + file + " " + how
                + (removed.isEmpty() ? "" : "; removed " + removed + " from " + ownConfig));
        if (!kept.isEmpty()) {
            context.err().println("mcp-host disconnect: kept " + kept + " in " + ownConfig
                    + ": changed since connect (remove them with mcp-host remove if they are not wanted)");
        }
        return ExitCodes.OK;
    }
}
