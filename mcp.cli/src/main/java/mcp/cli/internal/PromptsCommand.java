package mcp.cli.internal;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import mcp.api.McpJson;
import mcp.api.PromptDefinition;
import mcp.manager.McpClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code prompts}: every connected server's prompts. */
@Command(name = "prompts", description = {
    "Connect the servers and list their prompts as SERVER:PROMPT, with their arguments (* required).",
    "Servers without the prompts capability are left out. Per-server errors are reported and do not change the"
            + " exit code."})
final class PromptsCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Option(names = "--server", paramLabel = "NAME", description = "Connect and list only this server.")
    String server;

    @Override
    public Integer call() {
        return SurfaceListing.list(root.context(), server, "prompts", McpClient::listPrompts, PromptsCommand::json,
                (context, listed) -> print(context.out(), listed.answers()));
    }

    /** {@code {"prompts": [{server, name, title?, description?, arguments}]}}; {@link SurfaceListing#list} adds the rest. */
    private static ObjectNode json(SurfaceListing.Answers<List<PromptDefinition>> listed) {
        ObjectNode document = McpJson.object();
        ArrayNode array = document.putArray("prompts");
        listed.answers().forEach((name, prompts) -> {
            for (PromptDefinition prompt : prompts) {
                ObjectNode node = array.addObject().put("server", name).put("name", prompt.name());
                prompt.title().ifPresent(title -> node.put("title", title));
                prompt.description().ifPresent(description -> node.put("description", description));
                ArrayNode arguments = node.putArray("arguments");
                for (PromptDefinition.Argument argument : prompt.arguments()) {
                    ObjectNode arg = arguments.addObject().put("name", argument.name());
                    argument.title().ifPresent(title -> arg.put("title", title));
                    argument.description().ifPresent(description -> arg.put("description", description));
                    arg.put("required", argument.required());
                }
            }
        });
        return document;
    }

    /** {@code SERVER:PROMPT (a*, b)  — description}, aligned. */
    private static void print(PrintStream out, Map<String, List<PromptDefinition>> listed) {
        List<String[]> lines = listed.entrySet().stream().flatMap(e -> e.getValue().stream().map(prompt -> new String[] {
            SurfaceListing.clean(e.getKey() + ":" + prompt.name(), 200) + arguments(prompt),
            prompt.title().or(prompt::description).map(t -> ToolsCommand.firstLine(SurfaceListing.clean(t, 2_000)))
                    .orElse("")})).toList();
        if (lines.isEmpty()) {
            out.println(listed.isEmpty() ? "No server offers prompts." : "No prompts.");
            return;
        }
        int width = lines.stream().mapToInt(line -> line[0].length()).max().orElse(0);
        for (String[] line : lines) {
            out.println(line[1].isEmpty() ? line[0] : ToolsCommand.pad(line[0], width) + "  — " + line[1]);
        }
    }

    /** @return {@code  (city*, state)}, or nothing for a prompt without arguments */
    private static String arguments(PromptDefinition prompt) {
        if (prompt.arguments().isEmpty()) {
            return "";
        }
        return prompt.arguments().stream().map(a -> SurfaceListing.clean(a.name(), 60) + (a.required() ? "*" : ""))
                .collect(Collectors.joining(", ", " (", ")"));
    }
}
