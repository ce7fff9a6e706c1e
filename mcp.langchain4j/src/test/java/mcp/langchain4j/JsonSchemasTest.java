package mcp.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.model.chat.request.json.JsonAnyOfSchema;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNullSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonReferenceSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The schema conversion alone: no server, no model. */
class JsonSchemasTest {

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text.replace('\'', '"'));
    }

    /** What a LangChain4j model provider sends for an element (the map OpenAI's and others' requests carry). */
    private static JsonNode sent(JsonSchemaElement element) {
        return McpJson.mapper().valueToTree(JsonSchemaElementUtils.toMap(element));
    }

    @Test
    void aTypedSchemaBecomesTheTypedModelAndIsSentAsItCame() {
        JsonNode schema = json("""
                {'type': 'object', 'description': 'A search.',
                 'properties': {
                   'query': {'type': 'string', 'description': 'Words to look for'},
                   'limit': {'type': 'integer'},
                   'score': {'type': 'number', 'description': 'Minimum score'},
                   'exact': {'type': 'boolean'},
                   'order': {'type': 'string', 'enum': ['asc', 'desc'], 'description': 'Sort order'},
                   'tags': {'type': 'array', 'items': {'type': 'string'}, 'description': 'Tags'},
                   'owner': {'type': 'object', 'description': 'Who',
                             'properties': {'name': {'type': 'string'},
                                            'teams': {'type': 'array', 'items': {'type': 'object',
                                                      'properties': {'id': {'type': 'integer'}}, 'required': ['id']}}},
                             'required': ['name'], 'additionalProperties': false}},
                 'required': ['query', 'owner'], 'additionalProperties': false}
                """);
        JsonObjectSchema parameters = JsonSchemas.toParameters(schema);

        assertEquals("A search.", parameters.description());
        assertEquals(List.of("query", "owner"), parameters.required());
        assertEquals(false, parameters.additionalProperties());
        Map<String, JsonSchemaElement> properties = parameters.properties();
        assertEquals(List.of("query", "limit", "score", "exact", "order", "tags", "owner"),
                List.copyOf(properties.keySet()), "the server's order");
        assertEquals("Words to look for", assertInstanceOf(JsonStringSchema.class, properties.get("query")).description());
        assertInstanceOf(JsonIntegerSchema.class, properties.get("limit"));
        assertEquals("Minimum score", assertInstanceOf(JsonNumberSchema.class, properties.get("score")).description());
        assertInstanceOf(JsonBooleanSchema.class, properties.get("exact"));
        JsonEnumSchema order = assertInstanceOf(JsonEnumSchema.class, properties.get("order"));
        assertEquals(List.of("asc", "desc"), order.enumValues());
        assertEquals("Sort order", order.description());
        JsonArraySchema tags = assertInstanceOf(JsonArraySchema.class, properties.get("tags"));
        assertInstanceOf(JsonStringSchema.class, tags.items());
        JsonObjectSchema owner = assertInstanceOf(JsonObjectSchema.class, properties.get("owner"));
        assertEquals(List.of("name"), owner.required());
        JsonObjectSchema team = assertInstanceOf(JsonObjectSchema.class,
                assertInstanceOf(JsonArraySchema.class, owner.properties().get("teams")).items());
        assertEquals(List.of("id"), team.required());

        // LangChain4j writes additionalProperties only in strict mode; everything else is what the server wrote.
        JsonNode expected = schema.deepCopy();
        ((tools.jackson.databind.node.ObjectNode) expected).remove("additionalProperties");
        ((tools.jackson.databind.node.ObjectNode) expected.get("properties").get("owner")).remove("additionalProperties");
        assertEquals(expected, sent(parameters));
    }

    @Test
    void whatNoTypeHoldsIsKeptRawAsTheServerWroteIt() {
        JsonNode schema = json("""
                {'type': 'object', 'properties': {
                   'count': {'type': 'integer', 'minimum': 1, 'maximum': 10},
                   'when': {'type': 'string', 'format': 'date-time'},
                   'level': {'type': 'integer', 'enum': [1, 2, 3]},
                   'name': {'anyOf': [{'type': 'string'}, {'type': 'null'}], 'default': null},
                   'shape': {'oneOf': [{'type': 'string'}, {'type': 'integer'}]},
                   'labels': {'type': 'object', 'additionalProperties': {'type': 'string'}},
                   'pair': {'type': 'array', 'prefixItems': [{'type': 'string'}, {'type': 'integer'}]},
                   'anything': {},
                   'nothing': false}}
                """);
        Map<String, JsonSchemaElement> properties = JsonSchemas.toParameters(schema).properties();
        for (String name : List.of("count", "when", "level", "name", "shape", "labels", "pair")) {
            JsonRawSchema raw = assertInstanceOf(JsonRawSchema.class, properties.get(name), name);
            assertEquals(schema.get("properties").get(name), json(raw.schema()), name + " as the server wrote it");
        }
        assertEquals(json("{}"), json(assertInstanceOf(JsonRawSchema.class, properties.get("anything")).schema()));
        assertEquals(json("{'not': {}}"),
                json(assertInstanceOf(JsonRawSchema.class, properties.get("nothing")).schema()));
        assertEquals(schema.get("properties").get("count"), sent(properties.get("count")), "sent as it is");
    }

    @Test
    void annotationsAreDroppedAndNullableTypesAreAnyOf() {
        // The Python SDK's shape: titles everywhere, a property called "title", Optional as anyOf or a type list.
        JsonNode schema = json("""
                {'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'addArguments', 'type': 'object',
                 'properties': {
                   'a': {'title': 'A', 'type': 'integer'},
                   'title': {'title': 'Title', 'type': 'string', '$comment': 'a property named title stays'},
                   'note': {'type': ['string', 'null'], 'description': 'Optional note'},
                   'maybe': {'anyOf': [{'type': 'integer'}, {'type': 'null'}], 'title': 'Maybe'}},
                 'required': ['a', 'title']}
                """);
        JsonObjectSchema parameters = JsonSchemas.toParameters(schema);
        assertNull(parameters.description());
        assertEquals(List.of("a", "title", "note", "maybe"), List.copyOf(parameters.properties().keySet()));
        assertInstanceOf(JsonIntegerSchema.class, parameters.properties().get("a"));
        assertInstanceOf(JsonStringSchema.class, parameters.properties().get("title"));
        JsonAnyOfSchema note = assertInstanceOf(JsonAnyOfSchema.class, parameters.properties().get("note"));
        assertEquals("Optional note", note.description());
        assertInstanceOf(JsonStringSchema.class, note.anyOf().get(0));
        assertInstanceOf(JsonNullSchema.class, note.anyOf().get(1));
        JsonAnyOfSchema maybe = assertInstanceOf(JsonAnyOfSchema.class, parameters.properties().get("maybe"));
        assertInstanceOf(JsonIntegerSchema.class, maybe.anyOf().get(0));
        assertEquals(List.of(), JsonSchemas.unexpressedRootKeywords(schema), "annotations are not losses");
    }

    @Test
    void draft07DefinitionsBecomeDefsAndEveryReferenceFollows() {
        JsonNode schema = json("""
                {'type': 'object',
                 'properties': {'node': {'$ref': '#/definitions/Node'},
                                'nodes': {'type': 'array', 'items': {'$ref': '#/definitions/Node'}, 'maxItems': 3}},
                 'definitions': {'Node': {'type': 'object', 'properties': {
                     'value': {'type': 'string'}, 'children': {'type': 'array', 'items': {'$ref': '#/definitions/Node'}}}}}}
                """);
        JsonObjectSchema parameters = JsonSchemas.toParameters(schema);
        assertEquals("Node", assertInstanceOf(JsonReferenceSchema.class, parameters.properties().get("node")).reference());
        JsonRawSchema nodes = assertInstanceOf(JsonRawSchema.class, parameters.properties().get("nodes"));
        assertEquals(json("{'type': 'array', 'items': {'$ref': '#/$defs/Node'}, 'maxItems': 3}"), json(nodes.schema()));
        JsonObjectSchema node = assertInstanceOf(JsonObjectSchema.class, parameters.definitions().get("Node"));
        assertEquals("Node", assertInstanceOf(JsonReferenceSchema.class,
                assertInstanceOf(JsonArraySchema.class, node.properties().get("children")).items()).reference());
        assertEquals("#/$defs/Node", sent(parameters).at("/properties/node/$ref").asString());
        assertEquals("string", sent(parameters).at("/$defs/Node/properties/value/type").asString());
    }

    @Test
    void rootKeywordsAnObjectSchemaCannotHoldAreNamed() {
        JsonNode schema = json("""
                {'type': 'object', 'properties': {'a': {'type': 'string'}, 'b': {'type': 'string'}},
                 'oneOf': [{'required': ['a']}, {'required': ['b']}], 'minProperties': 1,
                 'additionalProperties': {'type': 'string'}}
                """);
        assertEquals(List.of("oneOf", "minProperties", "additionalProperties"),
                JsonSchemas.unexpressedRootKeywords(schema));
        JsonObjectSchema parameters = JsonSchemas.toParameters(schema);
        assertEquals(List.of("a", "b"), List.copyOf(parameters.properties().keySet()), "the properties stay");
        assertNull(parameters.additionalProperties());
    }

    @Test
    void aMissingOrEmptySchemaIsAnObjectWithoutProperties() {
        for (JsonNode schema : new JsonNode[] {null, json("{}"), json("{'type': 'object'}"), json("true")}) {
            JsonObjectSchema parameters = JsonSchemas.toParameters(schema);
            assertEquals(Map.of(), parameters.properties(), String.valueOf(schema));
            assertEquals(List.of(), parameters.required(), String.valueOf(schema));
        }
    }
}
