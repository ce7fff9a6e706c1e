package com.example.mcp.embed;

import java.nio.file.Path;
import java.util.Map;
import mcp.api.McpJson;
import mcp.host.AgentTool;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.manager.ToolOutput;

/**
 * {@code embed [--config FILE] TOOL [ARGS_JSON]}: opens a session on the user's MCP servers (or on the servers of
 * one native config file), prints the tools it got and the errors of the servers that failed, calls TOOL with
 * ARGS_JSON and prints the result. Every server process ends when the host closes.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        int first = 0;
        McpHost.Builder builder = McpHost.builder()
                .workingDirectory(Path.of("").toAbsolutePath());    // project configs: from here up
        if (args.length > 1 && args[0].equals("--config")) {
            builder.configFile(Path.of(args[1]));                   // this file only, no discovery
            first = 2;
        }
        if (args.length <= first) {
            System.err.println("usage: embed [--config FILE] TOOL [ARGS_JSON]");
            System.exit(2);
        }
        String toolName = args[first];
        String arguments = args.length > first + 1 ? args[first + 1] : "{}";

        int exitCode;
        try (McpHost host = builder.build();
             ToolSession session = host.openSession()) {            // discover, connect, 250 ms startup gate
            for (Map.Entry<String, String> error : session.lastLoad().errors().entrySet()) {
                System.err.println("server " + error.getKey() + " failed: " + error.getValue());
            }
            System.out.println("tools: " + session.tools().size());
            AgentTool tool = session.tool(toolName).orElseThrow(
                    () -> new IllegalArgumentException("no tool " + toolName + " in "
                            + session.tools().stream().map(AgentTool::name).toList()));
            ToolOutput output = tool.call(McpJson.mapper().readTree(arguments)).join();  // failures are outputs
            System.out.println((output.isError() ? "error: " : "result: ") + output.text());
            exitCode = output.isError() ? 1 : 0;
        }                                                           // every server process tree ends here
        System.exit(exitCode);
    }
}
