package mcp.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.PromptDefinition;
import mcp.api.PromptResult;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceResult;
import mcp.api.ResourceTemplate;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.protocol.ErrorCodes;
import mcp.protocol.ToolHeaders;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tools, resources, resource templates, prompts and completions declared as typed values and handlers: the
 * {@link RequestHandler} of a server that serves its own features (a gateway implements {@link RequestHandler}
 * itself). It may change while the server runs: every change tells the server's clients that the list changed.
 *
 * <p>What it declares ({@link #capabilities()}) is fixed when the server is built, from what it holds then: a feature
 * kind with nothing in it is not declared (add to it later and clients that never listed it will not see it).
 * Listings are in the order of declaration. Thread-safe: the maps are guarded by {@code this}.
 */
public final class ServerFeatures implements RequestHandler {

    private record Tool(ToolDefinition definition, ToolHandler handler, TaskSupport taskSupport, boolean deferTask) {
    }

    private record Resource(ResourceDefinition definition, ResourceReader reader) {
    }

    private record Template(ResourceTemplate definition, ResourceReader reader) {
    }

    private record Prompt(PromptDefinition definition, PromptHandler handler) {
    }

    private final Map<String, Tool> tools = new LinkedHashMap<>();
    private final Map<String, Resource> resources = new LinkedHashMap<>();
    private final Map<String, Template> templates = new LinkedHashMap<>();
    private final Map<String, Prompt> prompts = new LinkedHashMap<>();
    private final Map<CompletionReference, CompletionHandler> completions = new LinkedHashMap<>();
    private volatile Consumer<String> changes = method -> { };

    /**
     * Adds a tool, or replaces the one of that name.
     *
     * @param definition what clients list
     * @param handler what runs it
     * @return this
     * @throws IllegalArgumentException if its {@code x-mcp-header} annotations break the rules
     *     ({@link ToolHeaders#problem}: a client would leave the tool out)
     */
    public ServerFeatures tool(ToolDefinition definition, ToolHandler handler) {
        return tool(definition, TaskSupport.FORBIDDEN, handler);
    }

    /**
     * Adds a tool that may run as a task, or replaces the one of that name. Its handler runs the same either way; a
     * server whose tools are all {@link TaskSupport#FORBIDDEN} when it is built does not offer tasks at all.
     *
     * @param definition what clients list ({@code execution.taskSupport} is written by the server)
     * @param taskSupport whether it may, or must, run as a task
     * @param handler what runs it
     * @return this
     * @throws IllegalArgumentException if its {@code x-mcp-header} annotations break the rules
     */
    public ServerFeatures tool(ToolDefinition definition, TaskSupport taskSupport, ToolHandler handler) {
        return tool(definition, taskSupport, false, handler);
    }

    /**
     * Adds a tool that may run as a task once it has asked for what it needs, or replaces the one of that name: a
     * call of a 2026-07-28 client that takes tasks starts plain, its questions are {@code input_required} rounds, and
     * it becomes a task when its handler calls {@link RequestContext#runAsTask} ({@link RequestHandler#deferTask}).
     *
     * @param definition what clients list ({@code execution.taskSupport} is written by the server)
     * @param taskSupport whether it may, or must, run as a task
     * @param handler what runs it
     * @return this
     * @throws IllegalArgumentException if its {@code x-mcp-header} annotations break the rules
     */
    public ServerFeatures toolWithDeferredTask(ToolDefinition definition, TaskSupport taskSupport,
            ToolHandler handler) {
        return tool(definition, taskSupport, true, handler);
    }

    private ServerFeatures tool(ToolDefinition definition, TaskSupport taskSupport, boolean deferTask,
            ToolHandler handler) {
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(taskSupport, "taskSupport");
        Objects.requireNonNull(handler, "handler");
        ToolHeaders.problem(definition.inputSchema()).ifPresent(problem -> {
            throw new IllegalArgumentException("tool " + definition.name() + ": " + problem);
        });
        synchronized (this) {
            tools.put(definition.name(), new Tool(definition, handler, taskSupport, deferTask));
        }
        changes.accept("notifications/tools/list_changed");
        return this;
    }

    /**
     * @param name a tool's name
     * @return whether there was such a tool (now removed)
     */
    public boolean removeTool(String name) {
        boolean removed;
        synchronized (this) {
            removed = tools.remove(name) != null;
        }
        if (removed) {
            changes.accept("notifications/tools/list_changed");
        }
        return removed;
    }

    /**
     * Adds a resource, or replaces the one of that URI.
     *
     * @param definition what clients list
     * @param reader what reads it (its variables are empty)
     * @return this
     */
    public ServerFeatures resource(ResourceDefinition definition, ResourceReader reader) {
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(reader, "reader");
        synchronized (this) {
            resources.put(definition.uri(), new Resource(definition, reader));
        }
        changes.accept("notifications/resources/list_changed");
        return this;
    }

    /**
     * Adds a resource template, or replaces the one of that URI template.
     *
     * @param definition what clients list
     * @param reader what reads a URI that matches it, with the template's variables
     * @return this
     */
    public ServerFeatures resourceTemplate(ResourceTemplate definition, ResourceReader reader) {
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(reader, "reader");
        synchronized (this) {
            templates.put(definition.uriTemplate(), new Template(definition, reader));
        }
        changes.accept("notifications/resources/list_changed");
        return this;
    }

    /**
     * Adds a prompt, or replaces the one of that name.
     *
     * @param definition what clients list
     * @param handler what fills it in
     * @return this
     */
    public ServerFeatures prompt(PromptDefinition definition, PromptHandler handler) {
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(handler, "handler");
        synchronized (this) {
            prompts.put(definition.name(), new Prompt(definition, handler));
        }
        changes.accept("notifications/prompts/list_changed");
        return this;
    }

    /**
     * @param name a prompt's name
     * @return whether there was such a prompt (now removed)
     */
    public boolean removePrompt(String name) {
        boolean removed;
        synchronized (this) {
            removed = prompts.remove(name) != null;
        }
        if (removed) {
            changes.accept("notifications/prompts/list_changed");
        }
        return removed;
    }

    /**
     * Completes the arguments of a prompt or a resource template.
     *
     * @param reference the prompt or template
     * @param handler what completes its arguments
     * @return this
     */
    public synchronized ServerFeatures completion(CompletionReference reference, CompletionHandler handler) {
        completions.put(Objects.requireNonNull(reference, "reference"), Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /** @param listener told the notification method of every list change (the server's broadcast) */
    void onChange(Consumer<String> listener) {
        this.changes = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public synchronized Optional<JsonNode> toolInputSchema(String name) {
        Tool tool = tools.get(name);
        return tool == null ? Optional.empty() : Optional.of(tool.definition().inputSchema());
    }

    @Override
    public synchronized TaskSupport taskSupport(String name) {
        Tool tool = tools.get(name);
        return tool == null ? TaskSupport.FORBIDDEN : tool.taskSupport();
    }

    @Override
    public synchronized boolean deferTask(String name) {
        Tool tool = tools.get(name);
        return tool != null && tool.deferTask();
    }

    @Override
    public synchronized Capabilities capabilities() {
        boolean anyResource = !resources.isEmpty() || !templates.isEmpty();
        Capabilities capabilities = new Capabilities(!tools.isEmpty(), !tools.isEmpty(), anyResource, anyResource,
                anyResource, !prompts.isEmpty(), !prompts.isEmpty(), !completions.isEmpty(), McpJson.object());
        boolean anyTask = tools.values().stream().anyMatch(tool -> tool.taskSupport() != TaskSupport.FORBIDDEN);
        return anyTask ? capabilities.withTasks() : capabilities;
    }

    @Override
    public CompletableFuture<JsonNode> handle(Request request, RequestContext context) {
        try {
            return CompletableFuture.completedFuture(answer(request, context));
        } catch (CompletionException e) {
            return CompletableFuture.failedFuture(e.getCause() == null ? e : e.getCause());
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private JsonNode answer(Request request, RequestContext context) throws Exception {
        ObjectNode params = request.params();
        switch (request.method()) {
            case "tools/list" -> {
                ObjectNode result = McpJson.object();
                ArrayNode list = result.putArray("tools");
                snapshot(tools).forEach(tool -> list.add(tool.definition().toJson()));
                return result;
            }
            case "tools/call" -> {
                String name = text(params, "name");
                Tool tool;
                synchronized (this) {
                    tool = tools.get(name);
                }
                if (tool == null) {
                    throw invalid("Unknown tool: " + name);
                }
                JsonNode arguments = params.path("arguments").isObject() ? params.get("arguments") : McpJson.object();
                return callTool(tool, arguments, context);
            }
            case "resources/list" -> {
                ObjectNode result = McpJson.object();
                ArrayNode list = result.putArray("resources");
                snapshot(resources).forEach(resource -> list.add(resource.definition().toJson()));
                return result;
            }
            case "resources/templates/list" -> {
                ObjectNode result = McpJson.object();
                ArrayNode list = result.putArray("resourceTemplates");
                snapshot(templates).forEach(template -> list.add(template.definition().toJson()));
                return result;
            }
            case "resources/read" -> {
                return read(text(params, "uri"), context);
            }
            case "prompts/list" -> {
                ObjectNode result = McpJson.object();
                ArrayNode list = result.putArray("prompts");
                snapshot(prompts).forEach(prompt -> list.add(prompt.definition().toJson()));
                return result;
            }
            case "prompts/get" -> {
                return getPrompt(text(params, "name"), params.path("arguments"), context);
            }
            case "completion/complete" -> {
                return complete(params, context);
            }
            default -> throw new McpProtocolException(JsonRpcError.METHOD_NOT_FOUND,
                    "Method not found: " + request.method(), null);
        }
    }

    private synchronized <T> List<T> snapshot(Map<String, T> map) {
        return new ArrayList<>(map.values());
    }

    private static JsonNode callTool(Tool tool, JsonNode arguments, RequestContext context) {
        ToolResult result;
        try {
            result = tool.handler().call(arguments, context);
        } catch (Exception | Error e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof McpProtocolException protocol) {
                throw protocol;
            }
            if (cause instanceof CancellationException cancelled) {
                throw cancelled;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            // A tool's failure is the model's to read: an error result, not a protocol error.
            return ToolResult.error(cause.getMessage() == null ? cause.toString() : cause.getMessage()).raw();
        }
        if (result == null) {
            throw new IllegalStateException("tool " + tool.definition().name() + " returned no result");
        }
        return result.raw();
    }

    private JsonNode read(String uri, RequestContext context) throws Exception {
        Resource resource;
        List<Template> candidates;
        synchronized (this) {
            resource = resources.get(uri);
            candidates = new ArrayList<>(templates.values());
        }
        ResourceResult result = null;
        if (resource != null) {
            result = resource.reader().read(uri, Map.of(), context);
        } else {
            for (Template template : candidates) {
                Optional<Map<String, String>> variables = template.definition().variables(uri);
                if (variables.isPresent()) {
                    result = template.reader().read(uri, variables.get(), context);
                    break;
                }
            }
        }
        if (result == null || result.contents().isEmpty()) {
            throw ErrorCodes.resourceNotFound(uri, context.era());
        }
        return result.raw();
    }

    private JsonNode getPrompt(String name, JsonNode given, RequestContext context) throws Exception {
        Prompt prompt;
        synchronized (this) {
            prompt = prompts.get(name);
        }
        if (prompt == null) {
            throw invalid("Unknown prompt: " + name);
        }
        Map<String, String> arguments = new LinkedHashMap<>();
        if (given.isObject()) {
            for (String key : given.propertyNames()) {
                JsonNode value = given.get(key);
                arguments.put(key, value.isString() ? value.asString() : value.toString());
            }
        }
        for (PromptDefinition.Argument argument : prompt.definition().arguments()) {
            if (argument.required() && !arguments.containsKey(argument.name())) {
                throw invalid("Prompt " + name + " needs the argument " + argument.name());
            }
        }
        PromptResult result = prompt.handler().get(arguments, context);
        if (result == null) {
            throw new IllegalStateException("prompt " + name + " returned no result");
        }
        return result.raw();
    }

    private JsonNode complete(ObjectNode params, RequestContext context) throws Exception {
        JsonNode ref = params.path("ref");
        CompletionReference reference = switch (ref.path("type").asString("")) {
            case "ref/prompt" -> CompletionReference.prompt(ref.path("name").asString(""));
            case "ref/resource" -> CompletionReference.resourceTemplate(ref.path("uri").asString(""));
            default -> throw invalid("completion/complete needs a ref of type ref/prompt or ref/resource");
        };
        CompletionHandler handler;
        synchronized (this) {
            handler = completions.get(reference);
        }
        if (handler == null) {
            return CompletionResult.of(List.of(), java.util.OptionalLong.empty(), false).raw();
        }
        Map<String, String> resolved = new LinkedHashMap<>();
        JsonNode known = params.path("context").path("arguments");
        if (known.isObject()) {
            for (String key : known.propertyNames()) {
                resolved.put(key, known.get(key).asString(""));
            }
        }
        JsonNode argument = params.path("argument");
        CompletionResult result = handler.complete(argument.path("name").asString(""),
                argument.path("value").asString(""), resolved, context);
        return result.raw();
    }

    private static String text(ObjectNode params, String field) {
        JsonNode value = params.get(field);
        if (value == null || !value.isString()) {
            throw invalid("the request needs a " + field + " (a string)");
        }
        return value.asString();
    }

    private static McpProtocolException invalid(String why) {
        return new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Invalid params: " + why, null);
    }
}
