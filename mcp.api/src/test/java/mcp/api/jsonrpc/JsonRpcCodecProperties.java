package mcp.api.jsonrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Every message the codec writes reads back equal, whatever its ids, methods and payloads. */
class JsonRpcCodecProperties {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private final JsonRpcCodec codec = JsonRpcCodec.standard();

    @Property(tries = 500)
    void roundTripsThroughBytes(@ForAll("messages") JsonRpcMessage message) {
        assertEquals(message, codec.decode(codec.encode(message)));
    }

    @Property(tries = 200)
    void roundTripsThroughTrees(@ForAll("messages") JsonRpcMessage message) {
        assertEquals(message, codec.fromTree(codec.toTree(message)));
    }

    @Provide
    Arbitrary<JsonRpcMessage> messages() {
        Arbitrary<String> methods = Arbitraries.strings().ofMinLength(1).ofMaxLength(30);
        Arbitrary<JsonNode> params = json(3).injectNull(0.2);
        Arbitrary<JsonRpcMessage> requests = Combinators.combine(ids(), methods, params).as(JsonRpcRequest::new);
        Arbitrary<JsonRpcMessage> notifications = Combinators.combine(methods, params).as(JsonRpcNotification::new);
        Arbitrary<JsonRpcMessage> successes = Combinators.combine(ids(), json(3)).as(JsonRpcSuccess::new);
        Arbitrary<JsonRpcMessage> errors = Combinators.combine(ids().injectNull(0.1), Arbitraries.integers(),
                Arbitraries.strings().ofMaxLength(40), json(2).injectNull(0.5)).as(JsonRpcError::new);
        return Arbitraries.oneOf(requests, notifications, successes, errors);
    }

    private Arbitrary<RequestId> ids() {
        return Arbitraries.oneOf(Arbitraries.longs().map(RequestId::of),
                Arbitraries.strings().ofMaxLength(20).map(RequestId::of));
    }

    /** Arbitrary JSON values up to a depth: scalars, arrays and objects. */
    private Arbitrary<JsonNode> json(int depth) {
        Arbitrary<JsonNode> scalars = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(20).map(NODES::stringNode),
                // A parser reads a small integer back as an int node: generate what a parser would give.
                Arbitraries.longs().map(v -> v == v.intValue() ? NODES.numberNode(v.intValue()) : NODES.numberNode(v.longValue())),
                Arbitraries.of(true, false).map(NODES::booleanNode),
                Arbitraries.just(NODES.nullNode()));
        if (depth == 0) {
            return scalars;
        }
        Arbitrary<JsonNode> arrays = json(depth - 1).list().ofMaxSize(4).map(items -> {
            ArrayNode array = NODES.arrayNode();
            items.forEach(array::add);
            return array;
        });
        Arbitrary<JsonNode> objects = Arbitraries.maps(Arbitraries.strings().ofMaxLength(8), json(depth - 1))
                .ofMaxSize(4).map(entries -> {
                    ObjectNode object = NODES.objectNode();
                    entries.forEach(object::set);
                    return object;
                });
        return Arbitraries.oneOf(scalars, arrays, objects);
    }
}
