package mcp.api;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A resource template as an MCP server lists it in {@code resources/templates/list}: a family of
 * resources whose URIs follow an RFC 6570 template.
 *
 * @param uriTemplate the URI template, e.g. {@code file:///{path}}
 * @param name its name
 * @param title a display title, when given
 * @param description what its resources are, when given
 * @param mimeType the MIME type of its resources, when all share one
 * @param annotations audience, priority and other hints, when given
 */
public record ResourceTemplate(String uriTemplate, String name, Optional<String> title, Optional<String> description,
        Optional<String> mimeType, Optional<JsonNode> annotations) {

    /** Validates. */
    public ResourceTemplate {
        Objects.requireNonNull(uriTemplate, "uriTemplate");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(mimeType, "mimeType");
        Objects.requireNonNull(annotations, "annotations");
    }

    /**
     * Reads a template from its MCP JSON form; a missing {@code name} is the template.
     *
     * @param json one element of {@code resources/templates/list}'s {@code resourceTemplates} array
     * @return the template
     * @throws McpException if {@code uriTemplate} is missing or not a string
     */
    public static ResourceTemplate fromJson(JsonNode json) {
        JsonNode template = json.get("uriTemplate");
        if (template == null || !template.isString()) {
            throw new McpException("Invalid resource template: \"uriTemplate\" must be a string, got "
                    + ToolDefinition.abbreviate(json));
        }
        return new ResourceTemplate(template.asString(), McpValues.text(json, "name").orElse(template.asString()),
                McpValues.text(json, "title"), McpValues.text(json, "description"), McpValues.text(json, "mimeType"),
                McpValues.node(json, "annotations"));
    }

    /**
     * Whether a URI is one this template stands for: RFC 6570 matching, enough of it for the templates servers list.
     * A simple expression ({@code {id}}, level 1) matches one or more characters up to the next {@code /}, {@code ?}
     * or {@code #}, as its expansion percent-encodes those; reserved and fragment expansion ({@code {+path}},
     * {@code {#frag}}, level 2) and the expressions of levels 3 and 4 match any characters, possibly none. An
     * unclosed brace is taken literally.
     *
     * @param uri a URI
     * @return whether some values of the template's variables expand to exactly that URI
     */
    public boolean matches(String uri) {
        return matches(uriTemplate, uri);
    }

    /**
     * @param template a URI template, e.g. {@code test://items/{id}}
     * @param uri a URI
     * @return whether some values of the template's variables expand to exactly that URI ({@link #matches(String)})
     */
    public static boolean matches(String template, String uri) {
        return variables(template, uri).isPresent();
    }

    /**
     * The values of the template's variables that expand to a URI, for a server that reads the resources of its
     * templates: matched as {@link #matches(String)} says, a simple expression's value percent-decoded (its expansion
     * percent-encodes), any other expression's value as it stands in the URI, under the expression's text without its
     * operator ({@code {+path}} gives {@code path}).
     *
     * @param uri a URI
     * @return the values by variable, when the URI is one of this template's
     */
    public Optional<Map<String, String>> variables(String uri) {
        return variables(uriTemplate, uri);
    }

    /**
     * @param template a URI template
     * @param uri a URI
     * @return the values by variable, when the URI is one of the template's ({@link #variables(String)})
     */
    public static Optional<Map<String, String>> variables(String template, String uri) {
        StringBuilder regex = new StringBuilder();
        List<String> names = new ArrayList<>();
        List<Boolean> simples = new ArrayList<>();
        int i = 0;
        while (i < template.length()) {
            int open = template.indexOf('{', i);
            int close = open < 0 ? -1 : template.indexOf('}', open);
            if (close < 0) {
                regex.append(Pattern.quote(template.substring(i)));
                break;
            }
            if (open > i) {
                regex.append(Pattern.quote(template.substring(i, open)));
            }
            String expression = template.substring(open + 1, close);
            boolean simple = !expression.isEmpty() && "+#./;?&=,!@|".indexOf(expression.charAt(0)) < 0;
            regex.append(simple ? "([^/?#]+)" : "(.*)");
            names.add(simple || expression.isEmpty() ? expression : expression.substring(1));
            simples.add(simple);
            i = close + 1;
        }
        Matcher matcher = Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(uri);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (int group = 0; group < names.size(); group++) {
            String value = matcher.group(group + 1);
            values.put(names.get(group), simples.get(group) ? percentDecoded(value) : value);
        }
        return Optional.of(values);
    }

    /** Percent-decoding as URIs have it (a {@code +} stays a {@code +}); a malformed escape is left as it stands. */
    private static String percentDecoded(String value) {
        if (value.indexOf('%') < 0) {
            return value;
        }
        try {
            return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return value;
        }
    }

    /** @return this template as MCP writes it (for the tool cache; {@link #fromJson} reads it back) */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object();
        json.put("uriTemplate", uriTemplate);
        json.put("name", name);
        title.ifPresent(t -> json.put("title", t));
        description.ifPresent(d -> json.put("description", d));
        mimeType.ifPresent(m -> json.put("mimeType", m));
        annotations.ifPresent(a -> json.set("annotations", a));
        return json;
    }
}
