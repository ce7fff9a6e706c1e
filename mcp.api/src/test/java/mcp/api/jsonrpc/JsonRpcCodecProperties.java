package mcp.api.jsonrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import mcp.proptest.Cases;
import mcp.proptest.Gen;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every message the codec writes reads back equal, whatever its ids, methods and payloads. What the
 * codec makes of bytes it did not write is {@link JsonRpcCodecFuzzTest}'s part.
 */
class JsonRpcCodecProperties {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private final JsonRpcCodec codec = JsonRpcCodec.standard();

    @Test
    void roundTripsThroughBytes() {
        Cases.run(500, gen -> {
            JsonRpcMessage message = message(gen);
            assertEquals(message, codec.decode(codec.encode(message)));
        });
    }

    @Test
    void roundTripsThroughTrees() {
        Cases.run(200, gen -> {
            JsonRpcMessage message = message(gen);
            assertEquals(message, codec.fromTree(codec.toTree(message)));
        });
    }

    /** A request, notification, success or error with any ids, methods and payloads. */
    static JsonRpcMessage message(Gen gen) {
        return switch (gen.weighted(1, 1, 1, 1)) {
            case 0 -> new JsonRpcRequest(id(gen), method(gen), gen.nullOr(0.2, () -> json(gen, 3)));
            case 1 -> new JsonRpcNotification(method(gen), gen.nullOr(0.2, () -> json(gen, 3)));
            case 2 -> new JsonRpcSuccess(id(gen), json(gen, 3));
            default -> new JsonRpcError(gen.nullOr(0.1, () -> id(gen)), gen.anyInt(), gen.string(0, 40),
                    gen.nullOr(0.5, () -> json(gen, 2)));
        };
    }

    private static String method(Gen gen) {
        return gen.string(1, 30);
    }

    static RequestId id(Gen gen) {
        return gen.bool() ? RequestId.of(gen.anyLong()) : RequestId.of(gen.string(0, 20));
    }

    /** Any JSON value up to a depth: scalars, arrays and objects. */
    static JsonNode json(Gen gen, int depth) {
        return switch (gen.weighted(4, depth > 0 ? 1 : 0, depth > 0 ? 1 : 0)) {
            case 0 -> switch (gen.weighted(1, 1, 1, 1)) {
                case 0 -> NODES.stringNode(gen.string(0, 20));
                // A parser reads a small integer back as an int node: generate what a parser would give.
                case 1 -> {
                    long v = gen.anyLong();
                    yield v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v);
                }
                case 2 -> NODES.booleanNode(gen.bool());
                default -> NODES.nullNode();
            };
            case 1 -> array(gen.list(0, 4, () -> json(gen, depth - 1)));
            default -> {
                ObjectNode object = NODES.objectNode();
                // Keys are well-formed UTF-16: Jackson writes a key with a lone surrogate as an escape that
                // its own parser refuses (values with one round-trip), so no peer can send such a key.
                gen.map(0, 4, () -> gen.wellFormedString(0, 8), () -> json(gen, depth - 1)).forEach(object::set);
                yield object;
            }
        };
    }

    private static ArrayNode array(List<JsonNode> items) {
        ArrayNode array = NODES.arrayNode();
        items.forEach(array::add);
        return array;
    }
}
