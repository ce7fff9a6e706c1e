package mcp.api;

import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one {@link JsonMapper} of mcp-host: built once, immutable, shared by the codec and every
 * module that reads or writes JSON.
 */
public final class McpJson {

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            // Parse errors must not quote the input: it may hold a secret.
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();

    private McpJson() {
    }

    /** @return the shared mapper */
    public static JsonMapper mapper() {
        return MAPPER;
    }

    /** @return a new empty object node */
    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }
}
