package mcp.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import tools.jackson.databind.JsonNode;

/**
 * What mcp-host's client wrote to a stdio server, seen outside mcp-host: the server runs under
 * {@code interop/stdin-log.sh}, which copies its standard input into a file with {@code tee}.
 */
final class StdinLog {

    private StdinLog() {
    }

    /** @return the config that runs this server with what it is sent written to {@code log} (made anew each start) */
    static StdioServerConfig wrap(StdioServerConfig config, Path log) {
        List<String> args = new ArrayList<>(List.of(EraPeer.INTEROP.resolve("stdin-log.sh").toString(), log.toString(),
                config.command()));
        args.addAll(config.args());
        return StdioServerConfig.of("sh", args).withEnv(config.env());
    }

    /** @return the method of each message in the log, in order; {@code (response)} for an answer to the server */
    static List<String> methods(Path log) throws IOException {
        List<String> methods = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            if (!line.isBlank()) {
                JsonNode message = McpJson.mapper().readTree(line);
                methods.add(message.has("method") ? message.get("method").asString() : "(response)");
            }
        }
        return methods;
    }
}
