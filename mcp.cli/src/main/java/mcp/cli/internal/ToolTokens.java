package mcp.cli.internal;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import mcp.manager.BridgedTool;
import mcp.manager.TokenCounter;
import tools.jackson.databind.node.ObjectNode;

/**
 * The token estimates {@code tools} shows: per tool definition (as an agent sends it), per server and for the whole
 * set, counted by {@link TokenCounter} ({@value TokenCounter#ENCODING}, an estimate). The sums are of what the agent
 * gets: a tool meant for an app's view only (MCP Apps) has its own estimate but costs the agent nothing.
 *
 * @param perTool each tool's estimate, by its {@code mcp_...} name
 * @param perServer each server's sum over the agent's tools, in the order of the tools
 * @param toolCounts each server's number of the agent's tools
 * @param total the sum over the agent's tools
 */
record ToolTokens(Map<String, Integer> perTool, Map<String, Integer> perServer, Map<String, Integer> toolCounts,
        int total) {

    static ToolTokens of(List<BridgedTool> tools) {
        TokenCounter counter = TokenCounter.get();
        Map<String, Integer> perTool = new LinkedHashMap<>();
        Map<String, Integer> perServer = new LinkedHashMap<>();
        Map<String, Integer> counts = new LinkedHashMap<>();
        int total = 0;
        for (BridgedTool tool : tools) {
            int tokens = counter.countDefinition(tool);
            perTool.put(tool.name(), tokens);
            if (!tool.definition().visibleToModel()) {
                continue;
            }
            perServer.merge(tool.serverName(), tokens, Integer::sum);
            counts.merge(tool.serverName(), 1, Integer::sum);
            total += tokens;
        }
        return new ToolTokens(perTool, perServer, counts, total);
    }

    /** Adds {@code tokens} to each tool object (matched by {@code name}) and the totals object to the document. */
    void json(ObjectNode document) {
        document.path("tools").forEach(node -> {
            Integer tokens = perTool.get(node.path("name").asString(""));
            if (tokens != null) {
                ((ObjectNode) node).put("tokens", tokens);
            }
        });
        ObjectNode totals = document.putObject("tokens");
        totals.put("encoding", TokenCounter.ENCODING);
        ObjectNode servers = totals.putObject("servers");
        perServer.forEach(servers::put);
        totals.put("total", total);
    }

    /** The closing lines of the human listing: each server's definition tokens, then all. */
    void print(PrintStream out) {
        if (perServer.isEmpty()) {
            return;
        }
        int width = Math.max("all".length(), perServer.keySet().stream().mapToInt(String::length).max().orElse(0));
        int digits = String.format(Locale.ROOT, "%,d", total).length();
        out.println();
        out.println("Definition tokens (estimate, " + TokenCounter.ENCODING + "):");
        perServer.forEach((server, tokens) -> out.println("  " + ToolsCommand.pad(server, width) + "  "
                + String.format(Locale.ROOT, "%," + digits + "d", tokens) + "  (" + tools(toolCounts.get(server)) + ")"));
        out.println("  " + ToolsCommand.pad("all", width) + "  " + String.format(Locale.ROOT, "%," + digits + "d", total) + "  ("
                + tools(toolCounts.values().stream().mapToInt(Integer::intValue).sum()) + ")");
    }

    private static String tools(int count) {
        return count + (count == 1 ? " tool" : " tools");
    }
}
