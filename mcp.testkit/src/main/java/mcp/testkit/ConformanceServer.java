package mcp.testkit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.api.Content;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.PromptDefinition;
import mcp.api.PromptResult;
import mcp.api.ResourceContents;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceResult;
import mcp.api.ResourceTemplate;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.server.HttpEndpoint;
import mcp.server.HttpOptions;
import mcp.server.InputRequest;
import mcp.server.McpServer;
import mcp.server.ServerEndpoint;
import mcp.server.ServerLimits;
import mcp.server.ServerFeatures;
import mcp.server.TaskSupport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server the official conformance suite scores ({@code conformance server}), written on {@code mcp.server}: every
 * tool, resource, template and prompt its server scenarios call, by their fixed names, in both eras, over stdio and
 * Streamable HTTP. The same handlers serve both eras: what a tool asks of the client is a server request in the
 * handshake era and an {@code input_required} round in the stateless one.
 *
 * <pre>
 * java -cp ... mcp.testkit.ConformanceServer                 # stdio
 * java -cp ... mcp.testkit.ConformanceServer --http 0        # HTTP on 127.0.0.1, any port; prints the URL
 * </pre>
 */
public final class ConformanceServer {

    /** A 1x1 PNG. */
    static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    /** A WAV file of 8 samples of silence. */
    static final String WAV = wav();

    private ConformanceServer() {
    }

    private static String wav() {
        int samples = 8;
        ByteBuffer b = ByteBuffer.allocate(44 + samples * 2).order(ByteOrder.LITTLE_ENDIAN);
        b.put("RIFF".getBytes()).putInt(36 + samples * 2).put("WAVE".getBytes());
        b.put("fmt ".getBytes()).putInt(16).putShort((short) 1).putShort((short) 1).putInt(8000).putInt(16000)
                .putShort((short) 2).putShort((short) 16);
        b.put("data".getBytes()).putInt(samples * 2);
        return Base64.getEncoder().encodeToString(b.array());
    }

    /**
     * @return the fixture, not yet serving
     */
    public static McpServer create() {
        return create(ServerLimits.DEFAULT);
    }

    /**
     * @param limits the server's bounds (a load test raises the number of requests served at once)
     * @return the fixture, as {@link #create()} makes it, with these bounds
     */
    public static McpServer create(ServerLimits limits) {
        McpServer.Builder builder = McpServer.builder("mcp-host-conformance", "1.0.0").limits(limits)
                .title("mcp-host conformance fixture")
                .instructions("The fixture of the MCP conformance suite's server scenarios, on mcp-host's mcp.server.");
        tools(builder);
        resources(builder);
        prompts(builder);
        builder.completion(CompletionReference.prompt("test_prompt_with_arguments"), (argument, value, resolved,
                context) -> {
            List<String> values = new ArrayList<>();
            for (String candidate : List.of("paris", "park", "party", value + "-suggestion")) {
                if (candidate.startsWith(value)) {
                    values.add(candidate);
                }
            }
            return CompletionResult.of(values, OptionalLong.of(values.size()), false);
        });
        McpServer server = builder.build();
        ServerFeatures features = server.features().orElseThrow();
        AtomicInteger changes = new AtomicInteger();
        // The list-change triggers of the stateless scenarios: a tool and a prompt that come and go.
        features.tool(tool("test_trigger_tool_change", "Adds or removes a tool, so that the tool list changes"),
                (arguments, context) -> {
                    String name = "test_dynamic_tool_" + changes.incrementAndGet();
                    features.tool(tool(name, "A tool added by test_trigger_tool_change"),
                            (a, c) -> ToolResult.text("dynamic"));
                    return ToolResult.text("added " + name);
                });
        features.tool(tool("test_trigger_prompt_change", "Adds a prompt, so that the prompt list changes"),
                (arguments, context) -> {
                    String name = "test_dynamic_prompt_" + changes.incrementAndGet();
                    features.prompt(new PromptDefinition(name, Optional.empty(), Optional.of("A prompt added by "
                            + "test_trigger_prompt_change"), List.of()), (a, c) -> userText("dynamic"));
                    return ToolResult.text("added " + name);
                });
        return server;
    }

    private static ObjectNode json(String text) {
        return (ObjectNode) McpJson.mapper().readTree(text);
    }

    private static final ObjectNode NO_ARGUMENTS = json("{\"type\":\"object\",\"properties\":{}}");

    private static ToolDefinition tool(String name, String description) {
        return ToolDefinition.of(name, description, NO_ARGUMENTS);
    }

    private static ToolDefinition tool(String name, String description, String schema) {
        return ToolDefinition.of(name, description, json(schema));
    }

    private static ToolResult text(String text) {
        return ToolResult.text(text);
    }

    private static void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    private static ObjectNode elicitation(String message, String schema) {
        ObjectNode params = McpJson.object().put("message", message);
        params.set("requestedSchema", json(schema));
        return params;
    }

    private static ObjectNode sampling(String prompt, int maxTokens) {
        ObjectNode params = McpJson.object();
        params.putArray("messages").addObject().put("role", "user").putObject("content").put("type", "text")
                .put("text", prompt);
        params.put("maxTokens", maxTokens);
        return params;
    }

    private static String samplingText(JsonNode result) {
        JsonNode content = result.path("content");
        return content.isArray() ? content.path(0).path("text").asString("") : content.path("text").asString("");
    }

    private static void tools(McpServer.Builder b) {
        b.tool(tool("test_simple_text", "Returns a simple text"),
                (a, c) -> text("This is a simple text response for testing."));
        b.tool(tool("test_image_content", "Returns an image"),
                (a, c) -> ToolResult.of(List.of(new Content.Image(PNG, "image/png")), false));
        b.tool(tool("test_audio_content", "Returns audio"),
                (a, c) -> ToolResult.of(List.of(new Content.Audio(WAV, "audio/wav")), false));
        b.tool(tool("test_embedded_resource", "Returns an embedded resource"),
                (a, c) -> ToolResult.of(List.of(new Content.EmbeddedResource(new ResourceContents(
                        "test://embedded-resource", Optional.of("text/plain"),
                        Optional.of("This is an embedded resource content."), Optional.empty()))), false));
        b.tool(tool("test_multiple_content_types", "Returns text, an image and a resource"),
                (a, c) -> ToolResult.of(List.of(new Content.Text("Multiple content types test:"),
                        new Content.Image(PNG, "image/png"),
                        new Content.EmbeddedResource(new ResourceContents("test://mixed-content-resource",
                                Optional.of("application/json"), Optional.of("{\"test\":\"data\",\"value\":123}"),
                                Optional.empty()))), false));
        b.tool(tool("test_tool_with_logging", "Logs three messages while it runs"), (a, c) -> {
            c.log(LogLevel.INFO, "conformance", McpJson.mapper().getNodeFactory().stringNode("Tool execution started"));
            sleep(50);
            c.log(LogLevel.INFO, "conformance", McpJson.mapper().getNodeFactory().stringNode("Tool processing data"));
            sleep(50);
            c.log(LogLevel.INFO, "conformance", McpJson.mapper().getNodeFactory().stringNode("Tool execution completed"));
            return text("Tool with logging executed successfully");
        });
        b.tool(tool("test_logging_tool", "Logs a message while it runs (only at the level the request asks for)"),
                (a, c) -> {
                    c.log(LogLevel.INFO, "conformance", McpJson.mapper().getNodeFactory().stringNode("a log message"));
                    return text("Logged at the level the request asked for");
                });
        b.tool(tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100"), (a, c) -> {
            c.progress(0, 100, "started");
            sleep(50);
            c.progress(50, 100, "half way");
            sleep(50);
            c.progress(100, 100, "done");
            return text("Tool with progress executed successfully");
        });
        b.tool(tool("test_error_handling", "Always fails"),
                (a, c) -> ToolResult.error("This tool intentionally returns an error for testing"));
        b.tool(tool("test_sampling", "Asks the client's model", "{\"type\":\"object\",\"properties\":{\"prompt\":"
                + "{\"type\":\"string\",\"description\":\"The prompt\"}},\"required\":[\"prompt\"]}"), (a, c) -> {
                    JsonNode answer = c.sample(sampling(a.path("prompt").asString("Hello"), 100)).join();
                    return text("LLM response: " + samplingText(answer));
                });
        b.tool(tool("test_elicitation", "Asks the user", "{\"type\":\"object\",\"properties\":{\"message\":"
                + "{\"type\":\"string\",\"description\":\"What to ask\"}},\"required\":[\"message\"]}"), (a, c) -> {
                    JsonNode answer = c.elicit(elicitation(a.path("message").asString("Please provide your information"),
                            "{\"type\":\"object\",\"properties\":{\"username\":{\"type\":\"string\",\"description\":"
                                    + "\"User's response\"},\"email\":{\"type\":\"string\",\"description\":"
                                    + "\"User's email address\"}},\"required\":[\"username\",\"email\"]}")).join();
                    return text("User response: action=" + answer.path("action").asString("") + ", content="
                            + answer.path("content"));
                });
        b.tool(tool("test_elicitation_sep1034_defaults", "Asks the user, with a default for every field"), (a, c) -> {
            JsonNode answer = c.elicit(elicitation("Please review your information", "{\"type\":\"object\","
                    + "\"properties\":{\"name\":{\"type\":\"string\",\"description\":\"Name\",\"default\":\"John Doe\"},"
                    + "\"age\":{\"type\":\"integer\",\"description\":\"Age\",\"default\":30},"
                    + "\"score\":{\"type\":\"number\",\"description\":\"Score\",\"default\":95.5},"
                    + "\"status\":{\"type\":\"string\",\"description\":\"Status\",\"enum\":[\"active\",\"inactive\","
                    + "\"pending\"],\"default\":\"active\"},"
                    + "\"verified\":{\"type\":\"boolean\",\"description\":\"Verified\",\"default\":true}}}")).join();
            return text("Elicitation completed: action=" + answer.path("action").asString("") + ", content="
                    + answer.path("content"));
        });
        b.tool(tool("test_elicitation_sep1330_enums", "Asks the user, with every kind of enum"), (a, c) -> {
            JsonNode answer = c.elicit(elicitation("Please pick your options", "{\"type\":\"object\",\"properties\":{"
                    + "\"untitledSingle\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]},"
                    + "\"titledSingle\":{\"type\":\"string\",\"oneOf\":[{\"const\":\"value1\",\"title\":\"First Option\"},"
                    + "{\"const\":\"value2\",\"title\":\"Second Option\"},{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
                    + "\"legacyEnum\":{\"type\":\"string\",\"enum\":[\"opt1\",\"opt2\",\"opt3\"],\"enumNames\":"
                    + "[\"Option One\",\"Option Two\",\"Option Three\"]},"
                    + "\"untitledMulti\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"option1\","
                    + "\"option2\",\"option3\"]}},"
                    + "\"titledMulti\":{\"type\":\"array\",\"items\":{\"anyOf\":[{\"const\":\"value1\",\"title\":"
                    + "\"First Choice\"},{\"const\":\"value2\",\"title\":\"Second Choice\"},{\"const\":\"value3\","
                    + "\"title\":\"Third Choice\"}]}}}}")).join();
            return text("Elicitation completed: action=" + answer.path("action").asString("") + ", content="
                    + answer.path("content"));
        });
        b.tool(tool("test_missing_capability", "Needs the client's sampling, which a client must declare"),
                (a, c) -> text("LLM response: " + samplingText(c.sample(sampling("Say hello", 20)).join())));
        b.tool(tool("test_streaming_elicitation", "Asks the user while it runs"), (a, c) -> {
            JsonNode answer = c.ask("confirmation", InputRequest.elicitation(elicitation("Go on?",
                    "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}"))).join();
            return text("Confirmed: " + answer.path("content"));
        });
        // The client must resume the stream (Last-Event-ID) to get the answer: it is sent after the stream closed.
        b.tool(tool("test_reconnection", "Closes its event stream, then answers on the stream the client resumes"),
                (a, c) -> text(c.closeStream() ? "Answered after the stream was closed"
                        : "Answered on the open stream"));
        b.tool(tool("test_header_param", "Echoes a region that a routing header mirrors (x-mcp-header)",
                "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\",\"description\":"
                        + "\"Where to run\",\"x-mcp-header\":\"Region\"}},\"required\":[\"region\"]}"),
                (a, c) -> text("region: " + a.path("region").asString("")));
        b.tool(tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features",
                "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
                        + "\"$defs\":{\"address\":{\"$anchor\":\"addressDef\",\"type\":\"object\",\"properties\":"
                        + "{\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
                        + "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},"
                        + "\"contactMethod\":{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},"
                        + "\"phone\":{\"type\":\"string\"},\"email\":{\"type\":\"string\"}},"
                        + "\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],"
                        + "\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},\"required\":"
                        + "[\"contactMethod\"]},\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":"
                        + "[\"email\"]},\"additionalProperties\":false}"),
                (a, c) -> text("contact: " + a));
        inputRequired(b);
        tasks(b);
    }

    /**
     * The tools of the tasks scenarios (the 2026-07-28 extension; 2025-11-25 clients get the same tools as tasks of
     * that revision): a tool that is never a task, and tools that run as tasks when the client wants them or always.
     */
    private static void tasks(McpServer.Builder b) {
        b.tool(tool("greet", "Greets someone; never a task",
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}"),
                (a, c) -> text("Hello, " + a.path("name").asString("World") + "!"));
        b.tool(tool("slow_compute", "Sleeps the given seconds, then answers; a task when the client wants one",
                "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\"},\"label\":"
                        + "{\"type\":\"string\"}}}"), TaskSupport.OPTIONAL, (a, c) -> {
                    long millis = (long) (a.path("seconds").asDouble(1) * 1000);
                    c.progress(0, millis, "computing " + a.path("label").asString(""));
                    sleep(millis);
                    return text("computed " + a.path("label").asString("") + " in " + millis + " ms");
                });
        b.tool(tool("failing_job", "Fails after a second, as a tool's error; always a task"), TaskSupport.REQUIRED,
                (a, c) -> {
                    sleep(1_000);
                    return ToolResult.error("the job failed, as it always does");
                });
        b.tool(tool("protocol_error_job", "Fails with a protocol error; a task when the client wants one"),
                TaskSupport.OPTIONAL, (a, c) -> {
                    sleep(200);
                    throw new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "Internal error: the job broke", null);
                });
        b.tool(tool("confirm_delete", "Asks the user to confirm, then deletes; a task when the client wants one",
                "{\"type\":\"object\",\"properties\":{\"filename\":{\"type\":\"string\"}}}"), TaskSupport.OPTIONAL,
                (a, c) -> {
                    String file = a.path("filename").asString("the file");
                    JsonNode answer = c.ask("confirm", InputRequest.elicitation(elicitation("Delete " + file + "?",
                            "{\"type\":\"object\",\"properties\":{\"confirm\":{\"type\":\"boolean\"}}}"))).join();
                    boolean yes = answer.path("action").asString("").equals("accept")
                            && answer.path("content").path("confirm").asBoolean(false);
                    return text(yes ? "Deleted " + file : "Kept " + file);
                });
        b.tool(tool("multi_input", "Asks two questions at once; a task when the client wants one"),
                TaskSupport.OPTIONAL, (a, c) -> {
                    String schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
                            + "\"confirm\":{\"type\":\"boolean\"}}}";
                    Map<String, InputRequest> round = new LinkedHashMap<>();
                    round.put("first", InputRequest.elicitation(elicitation("First?", schema)));
                    round.put("second", InputRequest.elicitation(elicitation("Second?", schema)));
                    Map<String, JsonNode> answers = c.ask(round).join();
                    return text(answers.get("first").path("content").path("name").asString("") + " and "
                            + answers.get("second").path("content").path("name").asString(""));
                });
        // Asks by input_required rounds first, and only then becomes a task.
        b.toolWithDeferredTask(tool("test_tool_with_task", "Asks the user's name, then greets as a task"),
                TaskSupport.REQUIRED, (a, c) -> {
                    JsonNode answer = c.ask("user_name", InputRequest.elicitation(elicitation("What is your name?",
                            "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                                    + "\"required\":[\"name\"]}"))).join();
                    c.runAsTask();
                    sleep(200);
                    return text("Hello, " + answer.path("content").path("name").asString("stranger") + "!");
                });
    }

    /** The tools of the multi round-trip scenarios: each asks with the keys the scenarios look for. */
    private static void inputRequired(McpServer.Builder b) {
        String nameSchema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}";
        b.tool(tool("test_input_required_result_elicitation", "Asks the user's name"), (a, c) -> {
            JsonNode answer = c.ask("user_name", InputRequest.elicitation(elicitation("What is your name?",
                    nameSchema))).join();
            return text("Hello, " + answer.path("content").path("name").asString("stranger") + "!");
        });
        b.tool(tool("test_input_required_result_sampling", "Asks the client's model a question"), (a, c) -> {
            JsonNode answer = c.ask("capital_question", InputRequest.sampling(sampling("What is the capital of France?",
                    100))).join();
            return text("The model said: " + samplingText(answer));
        });
        b.tool(tool("test_input_required_result_list_roots", "Asks the client's roots"), (a, c) -> {
            JsonNode answer = c.ask("client_roots", InputRequest.roots()).join();
            List<String> uris = new ArrayList<>();
            answer.path("roots").forEach(root -> uris.add(root.path("uri").asString("")));
            return text("The client's roots: " + String.join(", ", uris));
        });
        b.tool(tool("test_input_required_result_request_state", "Asks for a confirmation, with request state"),
                (a, c) -> {
                    JsonNode answer = c.ask("confirm", InputRequest.elicitation(elicitation("Please confirm",
                            "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}")))
                            .join();
                    // The server checked the request state (HMAC) before this call went on: it is good.
                    return text("state-ok: confirmed=" + answer.path("content").path("ok").asBoolean(false));
                });
        b.tool(tool("test_input_required_result_multiple_inputs", "Asks the user, the model and the roots at once"),
                (a, c) -> {
                    Map<String, InputRequest> round = new LinkedHashMap<>();
                    round.put("user_name", InputRequest.elicitation(elicitation("What is your name?", nameSchema)));
                    round.put("greeting", InputRequest.sampling(sampling("Generate a greeting", 50)));
                    round.put("client_roots", InputRequest.roots());
                    Map<String, JsonNode> answers = c.ask(round).join();
                    return text(samplingText(answers.get("greeting")) + " "
                            + answers.get("user_name").path("content").path("name").asString("") + " ("
                            + answers.get("client_roots").path("roots").size() + " roots)");
                });
        b.tool(tool("test_input_required_result_multi_round", "Asks twice, one after the other"), (a, c) -> {
            JsonNode name = c.ask("step1", InputRequest.elicitation(elicitation("Step 1: What is your name?",
                    nameSchema))).join();
            JsonNode color = c.ask("step2", InputRequest.elicitation(elicitation("Step 2: What is your favorite color?",
                    "{\"type\":\"object\",\"properties\":{\"color\":{\"type\":\"string\"}},\"required\":[\"color\"]}")))
                    .join();
            return text(name.path("content").path("name").asString("") + " likes "
                    + color.path("content").path("color").asString(""));
        });
        b.tool(tool("test_input_required_result_tampered_state", "Asks for a confirmation; its state is sealed"),
                (a, c) -> {
                    c.ask("confirm", InputRequest.elicitation(elicitation("Please confirm",
                            "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}")))
                            .join();
                    return text("state-ok");
                });
        b.tool(tool("test_input_required_result_capabilities", "Asks only what the client declared it can answer"),
                (a, c) -> {
                    Map<String, InputRequest> round = new LinkedHashMap<>();
                    if (c.declares("elicitation")) {
                        round.put("user_name", InputRequest.elicitation(elicitation("What is your name?", nameSchema)));
                    }
                    if (c.declares("sampling")) {
                        round.put("greeting", InputRequest.sampling(sampling("Generate a greeting", 50)));
                    }
                    if (c.declares("roots")) {
                        round.put("client_roots", InputRequest.roots());
                    }
                    return text("Answered: " + c.ask(round).join().keySet());
                });
    }

    private static void resources(McpServer.Builder b) {
        b.resource(new ResourceDefinition("test://static-text", "static-text", Optional.empty(),
                Optional.of("A static text resource"), Optional.of("text/plain"), OptionalLong.empty(), Optional.empty()),
                (uri, v, c) -> ResourceResult.of(List.of(new ResourceContents(uri, Optional.of("text/plain"),
                        Optional.of("This is the content of the static text resource."), Optional.empty()))));
        b.resource(new ResourceDefinition("test://static-binary", "static-binary", Optional.empty(),
                Optional.of("A static binary resource"), Optional.of("image/png"), OptionalLong.empty(), Optional.empty()),
                (uri, v, c) -> ResourceResult.of(List.of(new ResourceContents(uri, Optional.of("image/png"),
                        Optional.empty(), Optional.of(PNG)))));
        b.resource(new ResourceDefinition("test://watched-resource", "watched-resource", Optional.empty(),
                Optional.of("A resource clients may subscribe to"), Optional.of("text/plain"), OptionalLong.empty(),
                Optional.empty()),
                (uri, v, c) -> ResourceResult.of(List.of(new ResourceContents(uri, Optional.of("text/plain"),
                        Optional.of("Watched resource content"), Optional.empty()))));
        b.resourceTemplate(new ResourceTemplate("test://template/{id}/data", "template-data", Optional.empty(),
                Optional.of("A resource template with an id"), Optional.of("application/json"), Optional.empty()),
                (uri, v, c) -> ResourceResult.of(List.of(new ResourceContents(uri, Optional.of("application/json"),
                        Optional.of(McpJson.object().put("id", v.get("id")).put("templateTest", true)
                                .put("data", "Data for ID: " + v.get("id")).toString()), Optional.empty()))));
    }

    private static PromptResult userText(String text) {
        return PromptResult.of(Optional.empty(), List.of(new PromptResult.Message("user", new Content.Text(text))));
    }

    private static PromptDefinition.Argument argument(String name, String description) {
        return new PromptDefinition.Argument(name, Optional.empty(), Optional.of(description), true);
    }

    private static void prompts(McpServer.Builder b) {
        b.prompt(new PromptDefinition("test_simple_prompt", Optional.empty(), Optional.of("A prompt without arguments"),
                List.of()), (a, c) -> userText("This is a simple prompt for testing."));
        b.prompt(new PromptDefinition("test_prompt_with_arguments", Optional.empty(),
                Optional.of("A prompt with two arguments"), List.of(argument("arg1", "First test argument"),
                        argument("arg2", "Second test argument"))),
                (a, c) -> userText("Prompt with arguments: arg1='" + a.get("arg1") + "', arg2='" + a.get("arg2") + "'"));
        b.prompt(new PromptDefinition("test_prompt_with_embedded_resource", Optional.empty(),
                Optional.of("A prompt with an embedded resource"), List.of(argument("resourceUri",
                        "URI of the resource to embed"))),
                (a, c) -> PromptResult.of(Optional.empty(), List.of(
                        new PromptResult.Message("user", new Content.EmbeddedResource(new ResourceContents(
                                a.get("resourceUri"), Optional.of("text/plain"),
                                Optional.of("Embedded resource content for testing."), Optional.empty()))),
                        new PromptResult.Message("user", new Content.Text("Please process the embedded resource above.")))));
        b.prompt(new PromptDefinition("test_prompt_with_image", Optional.empty(), Optional.of("A prompt with an image"),
                List.of()), (a, c) -> PromptResult.of(Optional.empty(), List.of(
                        new PromptResult.Message("user", new Content.Image(PNG, "image/png")),
                        new PromptResult.Message("user", new Content.Text("Please analyze the image above.")))));
        b.prompt(new PromptDefinition("test_input_required_result_prompt", Optional.empty(),
                Optional.of("A prompt that asks the user for context first"), List.of()), (a, c) -> {
                    JsonNode answer = c.ask("user_context", InputRequest.elicitation(elicitation(
                            "What context should the prompt use?", "{\"type\":\"object\",\"properties\":{\"context\":"
                                    + "{\"type\":\"string\"}},\"required\":[\"context\"]}"))).join();
                    return userText("Use this context: " + answer.path("content").path("context").asString(""));
                });
    }

    /**
     * Serves the fixture: over stdio by default, or with {@code --http PORT} (0: any) over HTTP on 127.0.0.1, the
     * URL printed on stderr; {@code --bind ADDRESS} and {@code --token TOKEN} as {@link HttpOptions} say.
     *
     * @param args the options
     * @throws IOException if the HTTP address cannot be bound
     * @throws InterruptedException if interrupted
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        HttpOptions http = null;
        ServerLimits limits = ServerLimits.DEFAULT;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--max-requests" -> limits = limits.withMaxConcurrentRequests(Integer.parseInt(args[++i]));
                case "--stdio" -> http = null;
                case "--http" -> http = HttpOptions.LOOPBACK.withPort(Integer.parseInt(args[++i]));
                case "--bind" -> http = (http == null ? HttpOptions.LOOPBACK : http).withBindAddress(args[++i]);
                case "--token" -> http = (http == null ? HttpOptions.LOOPBACK : http).withBearerToken(args[++i]);
                default -> {
                    System.err.println("usage: ConformanceServer [--stdio | --http PORT [--bind ADDRESS] [--token T]]"
                            + " [--max-requests N]");
                    System.exit(2);
                }
            }
        }
        McpServer server = create(limits);
        ServerEndpoint endpoint;
        if (http != null) {
            HttpEndpoint listening = server.serveHttp(http);
            System.err.println("MCP conformance fixture listening on " + listening.uri());
            endpoint = listening;
        } else {
            endpoint = server.serveStdio(System.in, System.out);
        }
        while (!endpoint.awaitClosed(Duration.ofHours(1))) {
            // Serves until stdin ends (stdio) or the process is ended (HTTP).
        }
        server.close();
    }
}
