package mcp.cli.internal;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import mcp.api.PromptResult;
import mcp.cli.internal.SurfaceTargets.Target;
import mcp.manager.internal.ResultRenderer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.JsonNode;

/** {@code prompt}: one prompt with its arguments filled in, as messages. */
@Command(name = "prompt", description = {
    "Get a prompt with its arguments filled in and print its messages (role, then the content as tool results show"
            + " it).",
    "NAME is SERVER:PROMPT, or PROMPT when only one server has it. Exit 1 when the server refuses."})
final class PromptCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "NAME", description = "The prompt, e.g. everything:args-prompt.")
    String name;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ARGS_JSON",
            description = "The arguments as a JSON object of strings (default: {}).")
    String argumentsJson;

    @Option(names = "--server", paramLabel = "NAME", description = "Get it from this server (connect only it).")
    String server;

    @Override
    public Integer call() {
        CliContext context = root.context();
        // Bad arguments fail before any server starts.
        Map<String, String> arguments = strings(argumentsJson);
        try (Loaded loaded = context.load(server, context.hostBuilder())) {
            Target target = SurfaceTargets.prompt(loaded, name, server, "prompts");
            PromptResult result = SurfaceListing.await(loaded, target.server(),
                    target.client().getPrompt(target.name(), arguments));
            if (context.json()) {
                context.printJson(result.raw());
            } else {
                print(context.out(), result);
            }
        }
        return ExitCodes.OK;
    }

    /**
     * @param text ARGS_JSON, or {@code null}
     * @return its members, every one a string
     * @throws CliException (usage) when it is not a JSON object of strings
     */
    static Map<String, String> strings(String text) {
        JsonNode object = CallCommand.parseArguments(text);
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> member : object.properties()) {
            if (!member.getValue().isString()) {
                throw CliException.usage("ARGS_JSON: prompt arguments are strings, and \"" + member.getKey()
                        + "\" is " + member.getValue() + "; write it as \"" + member.getValue().asString("...") + "\"");
            }
            values.put(member.getKey(), member.getValue().asString());
        }
        return values;
    }

    /** Each message: {@code [role]}, then its content as a tool result shows it; a blank line between messages. */
    private static void print(PrintStream out, PromptResult result) {
        if (result.messages().isEmpty()) {
            out.println("(no messages)");
        }
        boolean first = true;
        for (PromptResult.Message message : result.messages()) {
            if (!first) {
                out.println();
            }
            first = false;
            out.println("[" + SurfaceListing.clean(message.role().isEmpty() ? "?" : message.role(), 40) + "]");
            out.println(ResultRenderer.render(message.content()));
        }
    }
}
