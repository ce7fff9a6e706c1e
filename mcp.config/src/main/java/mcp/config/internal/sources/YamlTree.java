package mcp.config.internal.sources;

import java.util.HashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLParser;

/**
 * Reads one YAML document into a tree, resolving anchors and aliases.
 *
 * <p>Jackson's YAML module streams tokens and hands an alias ({@code *name}) over as a string holding
 * the anchor's name, so {@code cmd: *launcher} would read as the command {@code launcher}. goose's
 * reader (serde_yaml) resolves aliases, so this builder does too: an anchored value is remembered and
 * each alias to it becomes a copy. The copies are bounded ({@link #MAX_NODES}), so an alias bomb is a
 * problem, not an out-of-memory error; snakeyaml-engine bounds the document itself (3 Mi code points).
 * Merge keys ({@code <<: *base}, YAML 1.1) are not applied: {@code <<} stays a key like any other.
 */
final class YamlTree {

    /** Nodes a document may expand to; a config file has a few hundred. */
    static final int MAX_NODES = 200_000;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();

    /** A document mcp-host cannot take as goose would: an unknown alias, or too many nodes. */
    static final class Unreadable extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient TokenStreamLocation location;

        Unreadable(String message, TokenStreamLocation location) {
            super(message, null, false, false);
            this.location = location;
        }

        /** @return where, if known */
        TokenStreamLocation location() {
            return location;
        }
    }

    private final JsonParser parser;
    private final Map<String, JsonNode> anchors = new HashMap<>();
    private int nodes;

    private YamlTree(JsonParser parser) {
        this.parser = parser;
    }

    /**
     * @param bytes the file's content
     * @return the document's root, or {@code null} for an empty document (or only comments)
     * @throws JacksonException when the text is not YAML, or holds a second document
     * @throws Unreadable for an alias without its anchor, or a document that expands too far
     */
    static JsonNode read(byte[] bytes) {
        try (JsonParser parser = YAML.createParser(bytes)) {
            YamlTree tree = new YamlTree(parser);
            JsonToken first = parser.nextToken();
            if (first == null) {
                return null;
            }
            JsonNode root = tree.value(first);
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                // serde_yaml refuses a file with two documents; so does mcp-host, rather than guess.
                throw new Unreadable("a second YAML document (---) follows the first; goose reads one",
                        parser.currentTokenLocation());
            }
            return root;
        }
    }

    private JsonNode value(JsonToken token) {
        String anchor = ((YAMLParser) parser).isCurrentAlias() ? null : anchorName();
        JsonNode node;
        if (((YAMLParser) parser).isCurrentAlias()) {
            node = alias(parser.getString());
        } else if (token == JsonToken.START_OBJECT) {
            node = object();
        } else if (token == JsonToken.START_ARRAY) {
            node = array();
        } else {
            node = scalar(token);
        }
        if (anchor != null) {
            anchors.put(anchor, node);
        }
        return node;
    }

    private String anchorName() {
        Object id = parser.getObjectId();
        return id == null ? null : id.toString();
    }

    private ObjectNode object() {
        count(1);
        ObjectNode object = NODES.objectNode();
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_OBJECT; token = parser.nextToken()) {
            String name = parser.currentName();
            object.set(name, value(parser.nextToken()));
        }
        return object;
    }

    private ArrayNode array() {
        count(1);
        ArrayNode array = NODES.arrayNode();
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            array.add(value(token));
        }
        return array;
    }

    private JsonNode scalar(JsonToken token) {
        count(1);
        switch (token) {
            case VALUE_STRING:
                return NODES.stringNode(parser.getString());
            case VALUE_NUMBER_INT:
                switch (parser.getNumberType()) {
                    case INT:
                        return NODES.numberNode(parser.getIntValue());
                    case LONG:
                        return NODES.numberNode(parser.getLongValue());
                    default:
                        return NODES.numberNode(parser.getBigIntegerValue());
                }
            case VALUE_NUMBER_FLOAT:
                return NODES.numberNode(parser.getDoubleValue());
            case VALUE_TRUE:
                return NODES.booleanNode(true);
            case VALUE_FALSE:
                return NODES.booleanNode(false);
            case VALUE_NULL:
                return NODES.nullNode();
            default:
                // VALUE_EMBEDDED_OBJECT: a !!binary scalar; no config field takes one.
                return NODES.pojoNode(parser.getEmbeddedObject());
        }
    }

    private JsonNode alias(String name) {
        JsonNode target = anchors.get(name);
        if (target == null) {
            throw new Unreadable("the alias *" + name + " names no anchor (&" + name + ") before it",
                    parser.currentTokenLocation());
        }
        count(size(target));
        return target.deepCopy();
    }

    private void count(int more) {
        nodes += more;
        if (nodes > MAX_NODES) {
            throw new Unreadable("the document expands to more than " + MAX_NODES
                    + " values through its aliases", parser.currentTokenLocation());
        }
    }

    /** @return the nodes of a subtree, bounded just above the limit so that counting stays cheap */
    private int size(JsonNode node) {
        int size = 1;
        for (JsonNode child : node) {
            size += size(child);
            if (size > MAX_NODES) {
                return size;
            }
        }
        return size;
    }
}
