package mcp.cli.internal;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import mcp.api.CallPolicy;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.config.SkippedServer;
import mcp.manager.BridgedTool;
import mcp.manager.CallOptions;
import mcp.manager.ToolOutput;
import mcp.manager.WithheldTool;
import mcp.manager.internal.ToolNames;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code call}: one tool call, by the name the agent would use. */
@Command(name = "call", description = {
    "Call a tool by its mcp_<server>_<tool> name (or <server>/<tool> label) and print the result.",
    "A tool whose server is still connecting waits for it. Exit 1 when the result is an error or the call fails.",
    "The tool's call policy holds: a tool that the tool owning its server's config denies (a Claude Code deny rule,",
    "Codex's disabled_tools, Gemini CLI's excludeTools) is refused; one whose owner asks before each call (an ask",
    "rule, approval_mode \"prompt\") is asked about at a terminal and refused without one, unless --yes. Exit 3",
    "when refused."})
final class CallCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "TOOL", description = "The tool, e.g. mcp_github_search_issues.")
    String toolName;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ARGS_JSON",
            description = "The arguments as a JSON object (default: {}).")
    String argumentsJson;

    @Option(names = "--yes", description = {"Confirm this call in advance, for a tool whose owning tool asks before"
            + " each call (without a terminal, such a call is refused otherwise). A denied tool stays refused."})
    boolean yes;

    @Option(names = "--timeout", paramLabel = "MS",
            description = "How long to wait for the answer (default: the server's timeout, 30000 unless configured).")
    Long timeoutMillis;

    @Override
    public Integer call() {
        CliContext context = root.context();
        // Bad arguments fail before any server starts.
        JsonNode arguments = parseArguments(argumentsJson);
        // A result too large for an agent's context is saved to a file the output names: it stays for the person who
        // ran this after the command ends (docs/context-budget.md).
        try (Loaded loaded = context.load(context.hostBuilder().keepResultFiles(true))) {
            BridgedTool tool = find(loaded, toolName);
            confirm(context, tool, arguments);
            ToolOutput output = invoke(tool, arguments, bound(loaded, tool));
            if (context.json()) {
                context.printJson(json(output));
            } else {
                context.out().println(output.text());
            }
            return output.isError() ? ExitCodes.FAILURE : ExitCodes.OK;
        }
    }

    static JsonNode parseArguments(String text) {
        if (text == null || text.isBlank()) {
            return McpJson.object();
        }
        JsonNode parsed;
        try {
            parsed = McpJson.mapper().readTree(text);
        } catch (JacksonException e) {
            throw CliException.usage("ARGS_JSON is not valid JSON: " + e.getOriginalMessage());
        }
        if (parsed == null || !parsed.isObject()) {
            throw CliException.usage("ARGS_JSON must be a JSON object, like {\"message\": \"hi\"}");
        }
        return parsed;
    }

    private static BridgedTool find(Loaded loaded, String name) {
        List<BridgedTool> tools = loaded.tools();
        Optional<BridgedTool> found = tools.stream()
                .filter(tool -> tool.name().equals(name) || tool.label().equals(name))
                .findFirst();
        if (found.isPresent()) {
            return found.get();
        }
        // A tool its owner denies is not unknown: say who denies it and where.
        for (WithheldTool withheld : loaded.manager().withheldByOwner()) {
            if (withheld.label().equals(name)
                    || ToolNames.baseName(withheld.server(), withheld.definition().name()).equals(name)) {
                throw new CliException(ExitCodes.REFUSED, "Refused: " + withheld.label() + " is denied by "
                        + withheld.rule().describe() + ". It is withheld from the agent and its calls are refused;"
                        + " remove or change that rule to call it.");
            }
        }
        StringBuilder message = new StringBuilder("Unknown tool \"").append(name).append("\".")
                .append(Suggestions.didYouMean(name, tools.stream().map(BridgedTool::name).toList()));
        if (tools.isEmpty()) {
            message.append(" No server offers any tool.");
        }
        Map<String, String> errors = loaded.errors();
        errors.forEach((server, error) -> message.append(System.lineSeparator())
                .append("  (server \"").append(server).append("\" failed: ").append(error).append(')'));
        // The tool may be one of a server that its owning tool, or mcp-host, would not start (or could not sandbox):
        // say which, and how to change it.
        loaded.discovery().skipped().stream()
                .filter(s -> s.reason() == SkippedServer.Reason.NOT_CONSENTED
                        || s.reason() == SkippedServer.Reason.NOT_APPROVED
                        || s.reason() == SkippedServer.Reason.NO_SANDBOX)
                .forEach(s -> message.append(System.lineSeparator()).append("  (server \"").append(s.name())
                        .append("\" is not started: ").append(s.detail()).append(')'));
        throw CliException.usage(message.toString());
    }

    /**
     * A call whose owner asks first runs only once confirmed: by {@code --yes}, or by a person at a terminal. Without
     * one it is refused, saying how to confirm it; nothing asks about a tool whose owner decided nothing (typing the
     * command is the confirmation mcp-host needs), nor about one it allows.
     */
    private void confirm(CliContext context, BridgedTool tool, JsonNode arguments) {
        CallPolicy policy = tool.callPolicy();
        if (policy.decision() != CallPolicy.Decision.ASK || yes) {
            return;
        }
        String why = tool.label() + " asks before each call (" + policy.describe() + ")";
        if (!context.io().console()) {
            throw new CliException(ExitCodes.REFUSED, "Refused: " + why + ", and there is no terminal to ask at:"
                    + " pass --yes to confirm this call, or change that rule to let the tool run without asking.");
        }
        PrintStream err = context.err();
        err.println(why + ".");
        err.println("  arguments: " + McpJson.mapper().writeValueAsString(arguments));
        err.print("Call it? [y/N] ");
        err.flush();
        String answer = context.readLine().orElse("").strip().toLowerCase(Locale.ROOT);
        if (!answer.equals("y") && !answer.equals("yes")) {
            throw new CliException(ExitCodes.REFUSED, "Not called: " + tool.label() + " (answered no).");
        }
    }

    /** The longest wait: a deferred tool first waits for its server's connect, then for the call. */
    private Duration bound(Loaded loaded, BridgedTool tool) {
        Duration serverTimeout = Optional.ofNullable(loaded.discovery().configs().get(tool.serverName()))
                .map(ServerConfig::timeout).orElse(ServerConfig.DEFAULT_TIMEOUT);
        Duration call = timeoutMillis == null ? serverTimeout : Duration.ofMillis(timeoutMillis);
        return serverTimeout.multipliedBy(2).plus(call).plusSeconds(5);
    }

    private ToolOutput invoke(BridgedTool tool, JsonNode arguments, Duration bound) {
        CallOptions options = timeoutMillis == null ? CallOptions.DEFAULT
                : CallOptions.DEFAULT.withTimeout(Duration.ofMillis(Math.max(1, timeoutMillis)));
        CompletableFuture<ToolOutput> call = tool.call(arguments, options);
        try {
            return call.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            return failed(tool, "no answer after " + bound.toMillis() + " ms");
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            return failed(tool, "interrupted");
        } catch (ExecutionException | CancellationException e) {
            return failed(tool, String.valueOf(e.getCause() == null ? e : e.getCause()));
        }
    }

    private static ToolOutput failed(BridgedTool tool, String message) {
        return new ToolOutput(ToolOutput.failureText(message), true, new ToolOutput.Details(tool.serverName(),
                tool.toolName(), true, List.of(), Optional.empty(), Optional.empty(), Optional.empty()));
    }

    /**
     * The MCP result as the server sent it ({@code content}, {@code structuredContent} when given,
     * {@code isError}), or {@code {"error": message}} when there was no result: the call itself failed.
     */
    static ObjectNode json(ToolOutput output) {
        ObjectNode document = McpJson.object();
        ToolOutput.Details details = output.details();
        if (callFailed(output)) {
            String text = output.text();
            String prefix = ToolOutput.FAILURE + ": ";
            document.put("error", text.startsWith(prefix) ? text.substring(prefix.length()) : text);
            return document;
        }
        ArrayNode content = document.putArray("content");
        for (Content item : details.content()) {
            content.add(item.toJson());
        }
        details.structuredContent().ifPresent(structured -> document.set("structuredContent", structured));
        document.put("isError", output.isError());
        return document;
    }

    /** The bridge turns a failed call (not a tool error) into {@code MCP error: ...} without content. */
    private static boolean callFailed(ToolOutput output) {
        return output.isError() && output.details().content().isEmpty()
                && output.details().structuredContent().isEmpty() && output.text().startsWith(ToolOutput.FAILURE);
    }
}
