package mcp.host;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.api.PromptDefinition;
import mcp.manager.CallOptions;
import mcp.manager.McpManager;
import mcp.manager.SurfaceSlice;
import mcp.manager.ToolOutput;

/**
 * An MCP prompt as a command the embedder can offer its user (a slash command): named
 * {@code <server>:<prompt>}, with the prompt's arguments, run with their values into messages rendered as a tool
 * result is. A prompt of a server still connecting or reconnecting runs once it is back (within the server's
 * timeout).
 *
 * <p>Names keep the characters {@code A-Z a-z 0-9 _ . -} of the prompt's name (others become {@code _}, and a
 * prompt's name is cut at 64 characters); when two prompts of one server end up with one name, the later ones get
 * {@code ~2}, {@code ~3}, ... in the servers' order.
 */
public final class PromptCommand {

    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9_.-]");

    private final McpManager manager;
    private final String name;
    private final String serverName;
    private final PromptDefinition prompt;
    private final boolean deferred;

    private PromptCommand(McpManager manager, String name, String serverName, PromptDefinition prompt,
            boolean deferred) {
        this.manager = manager;
        this.name = name;
        this.serverName = serverName;
        this.prompt = prompt;
        this.deferred = deferred;
    }

    /** @return every prompt of the manager's servers as a command, in the servers' order */
    static List<PromptCommand> of(McpManager manager) {
        List<PromptCommand> commands = new ArrayList<>();
        Set<String> taken = new HashSet<>();
        for (SurfaceSlice slice : manager.surfaces()) {
            for (PromptDefinition prompt : slice.surface().prompts()) {
                String base = slice.server() + ":" + UNSAFE.matcher(prompt.name().length() > 64
                        ? prompt.name().substring(0, 64) : prompt.name()).replaceAll("_");
                String name = base;
                for (int n = 2; !taken.add(name); n++) {
                    name = base + "~" + n;
                }
                commands.add(new PromptCommand(manager, name, slice.server(), prompt, slice.deferred()));
            }
        }
        return List.copyOf(commands);
    }

    /** @return the command's name, {@code <server>:<prompt>} */
    public String name() {
        return name;
    }

    /** @return the server that serves the prompt */
    public String serverName() {
        return serverName;
    }

    /** @return the prompt as its server lists it: name, title, description and arguments (cleaned, bounded) */
    public PromptDefinition prompt() {
        return prompt;
    }

    /** @return whether its server is not connected yet (or again): running it waits for the server */
    public boolean deferred() {
        return deferred;
    }

    /**
     * Runs the prompt ({@code prompts/get}) with its arguments.
     *
     * @param arguments the arguments' values by name; a required one missing fails at once, nothing sent
     * @return its messages rendered for the agent, or a failure output ({@code MCP error: ...}) with isError
     */
    public CompletableFuture<ToolOutput> run(Map<String, String> arguments) {
        Objects.requireNonNull(arguments, "arguments");
        List<String> missing = prompt.arguments().stream().filter(PromptDefinition.Argument::required)
                .map(PromptDefinition.Argument::name).filter(argument -> !arguments.containsKey(argument)).toList();
        if (!missing.isEmpty()) {
            return CompletableFuture.completedFuture(failure("Prompt " + name + " needs "
                    + String.join(", ", missing)));
        }
        return manager.getPrompt(serverName, prompt.name(), arguments, CallOptions.DEFAULT)
                .thenApply(result -> ToolOutput.ofPrompt(serverName, prompt.name(), result))
                .exceptionally(error -> failure(ResourceTools.message(error)));
    }

    /**
     * Asks the server what an argument may take ({@code completion/complete}), for an embedder's suggestions.
     *
     * @param argument the argument's name
     * @param value what the user typed of it
     * @param context the values of the other arguments chosen so far
     * @return the suggestions
     */
    public CompletableFuture<CompletionResult> complete(String argument, String value, Map<String, String> context) {
        return manager.complete(serverName, CompletionReference.prompt(prompt.name()), argument, value, context);
    }

    private ToolOutput failure(String message) {
        return ResourceTools.output(serverName, prompt.name(), message, true);
    }

    @Override
    public String toString() {
        return "PromptCommand[" + name + "]";
    }
}
