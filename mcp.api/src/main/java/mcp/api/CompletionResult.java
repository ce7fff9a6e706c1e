package mcp.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of a {@code completion/complete}: values an argument may take, best first.
 *
 * @param values the suggested values (the spec allows at most 100; more are kept as sent)
 * @param total how many values there are in all, when the server says
 * @param hasMore whether there are more values than these (default {@code false})
 * @param raw the result exactly as the server sent it
 */
public record CompletionResult(List<String> values, OptionalLong total, boolean hasMore, JsonNode raw) {

    /** Validates and copies. */
    public CompletionResult {
        values = List.copyOf(values);
        Objects.requireNonNull(total, "total");
        Objects.requireNonNull(raw, "raw");
    }

    /**
     * Reads a result from its MCP JSON form; values that are not strings are left out.
     *
     * @param json the {@code result} member of a {@code completion/complete} response
     * @return the result
     */
    public static CompletionResult fromJson(JsonNode json) {
        JsonNode completion = json.path("completion");
        List<String> values = new ArrayList<>();
        for (JsonNode value : completion.path("values")) {
            if (value.isString()) {
                values.add(value.asString());
            }
        }
        JsonNode total = completion.get("total");
        return new CompletionResult(values, total != null && total.isIntegralNumber() && total.canConvertToLong()
                ? OptionalLong.of(total.longValue()) : OptionalLong.empty(), completion.path("hasMore").asBoolean(false),
                json);
    }

    /**
     * @param values the suggested values, best first
     * @param total how many there are in all, when known
     * @param hasMore whether there are more than these
     * @return a result built here (its {@link #raw()} is its JSON form): what a server answers
     */
    public static CompletionResult of(List<String> values, OptionalLong total, boolean hasMore) {
        ObjectNode json = McpJson.object();
        ObjectNode completion = json.putObject("completion");
        ArrayNode array = completion.putArray("values");
        values.forEach(array::add);
        total.ifPresent(count -> completion.put("total", count));
        completion.put("hasMore", hasMore);
        return new CompletionResult(values, total, hasMore, json);
    }
}
