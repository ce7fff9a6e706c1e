package mcp.manager;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import mcp.api.McpJson;
import mcp.api.spi.ElicitationUi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Ready answers to {@code elicitation/create}, the server asking the user for input. Register one
 * with {@link ClientOptions.Builder#handler(String, ServerRequestHandler)} under
 * {@link ClientOptions#ELICITATION_METHOD} (or through the host's {@code clientSettings}); only then
 * does the client declare the {@code elicitation} capability.
 *
 * <p>A form-mode request carries {@code message} and {@code requestedSchema}: a flat object schema whose
 * properties are strings, numbers, integers, booleans or enums, each with an optional {@code default}
 * (SEP-1034). The answer is {@code {"action": "accept", "content": {...}}}, {@code {"action": "decline"}} or
 * {@code {"action": "cancel"}}. A URL-mode request ({@code "mode": "url"}) asks the user to visit a page;
 * the handlers without a user decline it, and {@link #forUi} asks an {@link ElicitationUi}, which presents both
 * modes ({@link #withoutUi} is what a host without one answers).
 *
 * <pre>{@code
 * ClientOptions options = ClientOptions.builder("server")
 *         .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.acceptDefaults())
 *         .build();
 * }</pre>
 */
public final class ElicitationHandlers {

    private static final Logger LOG = LoggerFactory.getLogger(ElicitationHandlers.class);

    private ElicitationHandlers() {
    }

    /**
     * Asks the user through a UI, in the modes it presents ({@link ElicitationUi#modes()}, declared as the
     * client's capability). A form's accepted answer is completed with the schema's defaults and checked against
     * the schema ({@link ElicitationForm#problems}); one that does not fit, a schema a form cannot show, a URL
     * that is not {@code http} or {@code https}, and a mode the UI does not present are declined, logged at INFO
     * with the server's name and the reason, never a value or the URL. A UI that throws is logged and declined:
     * its failure is not the server's.
     *
     * @param serverName the server whose requests these are, for what the user sees
     * @param ui the UI
     * @return the handler
     */
    public static ElicitationHandler forUi(String serverName, ElicitationUi ui) {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(ui, "ui");
        Set<ElicitationUi.Mode> modes = Set.copyOf(ui.modes());
        return new ElicitationHandler() {
            @Override
            public Set<ElicitationUi.Mode> modes() {
                return modes;
            }

            @Override
            public void completed(String elicitationId) {
                try {
                    ui.completed(serverName, elicitationId);
                } catch (RuntimeException e) {
                    LOG.debug("MCP server \"{}\": the elicitation UI {} failed on a completion: {}", serverName,
                            ui.id(), e.toString());
                }
            }

            @Override
            public JsonNode handle(JsonNode params) {
                return ask(params, false);
            }

            @Override
            public JsonNode beforeRetry(JsonNode params) {
                return ask(params, true);
            }

            private JsonNode ask(JsonNode params, boolean callWaits) {
                JsonNode request = params == null ? McpJson.object() : params;
                boolean url = callWaits || "url".equals(request.path("mode").asString(""));
                ElicitationUi.Mode mode = url ? ElicitationUi.Mode.URL : ElicitationUi.Mode.FORM;
                if (!modes.contains(mode)) {
                    return declined(serverName, mode, "the elicitation UI " + ui.id() + " does not present this mode");
                }
                String message = request.path("message").asString("");
                try {
                    return url ? url(request, message, callWaits) : form(request, message);
                } catch (RuntimeException e) {
                    LOG.warn("MCP server \"{}\": the elicitation UI {} failed ({}); the request was declined",
                            serverName, ui.id(), e.getClass().getSimpleName());
                    LOG.debug("The elicitation UI's failure", e);
                    return action("decline");
                }
            }

            private JsonNode url(JsonNode request, String message, boolean callWaits) {
                URI target;
                try {
                    target = new URI(request.path("url").asString(""));
                } catch (URISyntaxException e) {
                    return declined(serverName, ElicitationUi.Mode.URL, "its url is not a URI");
                }
                String scheme = target.getScheme() == null ? "" : target.getScheme().toLowerCase(Locale.ROOT);
                if (!scheme.equals("https") && !scheme.equals("http") || target.getHost() == null) {
                    return declined(serverName, ElicitationUi.Mode.URL, "its url is not an http or https URL");
                }
                String id = request.path("elicitationId").asString("");
                ElicitationUi.Response response = ui.url(new ElicitationUi.UrlRequest(serverName, message, target, id,
                        callWaits));
                LOG.debug("MCP server \"{}\": URL elicitation {} to {}: {}", serverName, id, target.getHost(),
                        response.action().wire());
                return action(response.action().wire());
            }

            private JsonNode form(JsonNode request, String message) {
                JsonNode schema = request.path("requestedSchema");
                ElicitationForm form;
                try {
                    form = ElicitationForm.of(schema);
                } catch (IllegalArgumentException e) {
                    return declined(serverName, ElicitationUi.Mode.FORM, e.getMessage());
                }
                ElicitationUi.Response response = ui.form(new ElicitationUi.FormRequest(serverName, message, schema));
                if (response.action() != ElicitationUi.Action.ACCEPT) {
                    LOG.debug("MCP server \"{}\": form elicitation {}", serverName, response.action().wire());
                    return action(response.action().wire());
                }
                ObjectNode content = applyDefaults(schema, response.content().orElseGet(McpJson::object));
                List<String> problems = form.problems(content);
                if (!problems.isEmpty()) {
                    return declined(serverName, ElicitationUi.Mode.FORM, "the UI's answer does not fit the schema: "
                            + String.join("; ", problems));
                }
                ObjectNode result = action("accept");
                result.set("content", content);
                return result;
            }
        };
    }

    /**
     * What a host without an elicitation UI answers: it declares no {@code elicitation} capability (a server must
     * then not ask, and can tell its user that this client cannot), and a request that comes anyway is declined,
     * logged at INFO with the server's name and the mode, never the message, the schema or the URL. Not the
     * schema's defaults: an answer nobody gave would reach the server as the user's.
     *
     * @param serverName the server whose requests these are
     * @return the handler
     */
    public static ElicitationHandler withoutUi(String serverName) {
        Objects.requireNonNull(serverName, "serverName");
        return new ElicitationHandler() {
            @Override
            public Set<ElicitationUi.Mode> modes() {
                return Set.of();
            }

            @Override
            public JsonNode handle(JsonNode params) {
                boolean url = params != null && "url".equals(params.path("mode").asString(""));
                return declined(serverName, url ? ElicitationUi.Mode.URL : ElicitationUi.Mode.FORM,
                        "this front end has no elicitation UI (one-shot commands; an embedder without one): only "
                                + "mcp-host shell or a host given an ElicitationUi asks the user");
            }
        };
    }

    private static JsonNode declined(String serverName, ElicitationUi.Mode mode, String why) {
        LOG.info("MCP server \"{}\" asked the user for input ({} mode); declined: {}", serverName,
                mode.name().toLowerCase(Locale.ROOT), why);
        return action("decline");
    }

    /**
     * Accepts every form with the schema's defaults: each property that has a {@code default} gets
     * it. When a required property has no default, no valid answer exists without a user, so the
     * request is declined; so is a URL-mode request.
     *
     * @return the handler
     */
    public static ServerRequestHandler acceptDefaults() {
        return accepting(params -> McpJson.object());
    }

    /**
     * Answers with what {@code answer} returns, completed by the schema's defaults for every property
     * it left out (SEP-1034: a client applies the defaults of omitted fields). {@code answer} gets the
     * request's params and may block (to ask a person); it returns the content, or {@code null} to
     * decline. The request is declined too when a required property is still missing, and when it is a
     * URL-mode request.
     *
     * @param answer the content for a request's params, possibly partial, or {@code null}
     * @return the handler
     */
    public static ServerRequestHandler accepting(Function<JsonNode, JsonNode> answer) {
        Objects.requireNonNull(answer, "answer");
        return params -> {
            if (params != null && "url".equals(params.path("mode").asString(""))) {
                return action("decline");
            }
            JsonNode schema = params == null ? null : params.get("requestedSchema");
            JsonNode given = answer.apply(params);
            if (given == null || given.isNull()) {
                return action("decline");
            }
            ObjectNode content = applyDefaults(schema, given);
            for (JsonNode required : schema == null ? McpJson.mapper().createArrayNode() : schema.path("required")) {
                if (required.isString() && !content.has(required.asString())) {
                    return action("decline");
                }
            }
            ObjectNode result = action("accept");
            result.set("content", content);
            return result;
        };
    }

    /** @return a handler that declines every request */
    public static ServerRequestHandler decline() {
        return params -> action("decline");
    }

    /**
     * Completes content with a requested schema's defaults: a copy of {@code content} in which every
     * property of the schema that {@code content} lacks and that has a {@code default} gets that default.
     *
     * @param requestedSchema the request's {@code requestedSchema}, or {@code null}
     * @param content the content so far (an object), or {@code null} for none
     * @return a new object; {@code content} is not changed
     */
    public static ObjectNode applyDefaults(JsonNode requestedSchema, JsonNode content) {
        ObjectNode result = content != null && content.isObject() ? ((ObjectNode) content).deepCopy() : McpJson.object();
        JsonNode properties = requestedSchema == null ? null : requestedSchema.get("properties");
        if (properties == null || !properties.isObject()) {
            return result;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> property = it.next();
            JsonNode defaultValue = property.getValue().get("default");
            if (defaultValue != null && !defaultValue.isNull() && !result.has(property.getKey())) {
                result.set(property.getKey(), defaultValue.deepCopy());
            }
        }
        return result;
    }

    static ObjectNode action(String action) {
        return McpJson.object().put("action", action);
    }
}
