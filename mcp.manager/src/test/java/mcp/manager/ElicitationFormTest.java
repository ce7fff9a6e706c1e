package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Reading a restricted requestedSchema and what a person types into its fields. */
class ElicitationFormTest {

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    private static final JsonNode SCHEMA = json("""
            {"type": "object", "properties": {
              "email": {"type": "string", "format": "email", "title": "E-mail"},
              "size": {"type": "string", "enum": ["s", "m", "l"], "enumNames": ["Small", "Medium", "Large"]},
              "plan": {"type": "string", "oneOf": [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}],
                       "default": "free"},
              "age": {"type": "integer", "minimum": 18, "maximum": 130},
              "ratio": {"type": "number", "minimum": 0, "maximum": 1},
              "ok": {"type": "boolean", "default": false},
              "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 2},
              "when": {"type": "string", "format": "date"}
            }, "required": ["email", "age"]}""");

    private static ElicitationForm.Field field(String name) {
        return ElicitationForm.of(SCHEMA).fields().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
    }

    private static String refused(String name, String typed) {
        return assertThrows(IllegalArgumentException.class, () -> field(name).parse(typed)).getMessage();
    }

    @Test
    void fieldsComeInOrderWithKindsTitlesAndChoices() {
        List<ElicitationForm.Field> fields = ElicitationForm.of(SCHEMA).fields();
        assertEquals(List.of("email", "size", "plan", "age", "ratio", "ok", "tags", "when"),
                fields.stream().map(ElicitationForm.Field::name).toList());
        assertEquals("E-mail", fields.get(0).label());
        assertEquals(ElicitationForm.Type.CHOICE, fields.get(1).type());
        assertEquals(List.of(new ElicitationForm.Choice("free", "Free"), new ElicitationForm.Choice("pro", "Pro")),
                fields.get(2).choices());
        assertEquals(ElicitationForm.Type.MULTI_CHOICE, fields.get(6).type());
        assertTrue(fields.get(0).required() && !fields.get(1).required());
    }

    @Test
    void typedTextBecomesTypedValues() {
        assertEquals(json("\"ada@example.org\""), field("email").parse(" ada@example.org ").orElseThrow());
        assertEquals(json("\"m\""), field("size").parse("2").orElseThrow());
        assertEquals(json("\"l\""), field("size").parse("large").orElseThrow());
        assertEquals(json("\"pro\""), field("plan").parse("pro").orElseThrow());
        assertEquals(json("\"free\""), field("plan").parse("").orElseThrow(), "blank takes the default");
        assertEquals(json("41"), field("age").parse("41").orElseThrow());
        assertEquals(json("0.25"), field("ratio").parse("0.25").orElseThrow());
        assertEquals(json("true"), field("ok").parse("y").orElseThrow());
        assertEquals(json("[\"a\", \"c\"]"), field("tags").parse("a, 3").orElseThrow());
        assertEquals(Optional.empty(), field("when").parse(""), "an optional field without default is left out");
    }

    @Test
    void whatDoesNotFitIsRefusedWithAReason() {
        assertEquals("E-mail is required", refused("email", ""));
        assertEquals("an email address, please", refused("email", "not-an-address"));
        assertEquals("at least 18", refused("age", "17"));
        assertEquals("a whole number, please", refused("age", "4.5"));
        assertEquals("at most 1", refused("ratio", "2"));
        assertEquals("answer y or n", refused("ok", "maybe"));
        assertTrue(refused("size", "4").startsWith("choose 1 to 3"));
        assertEquals("choose at most 2", refused("tags", "a,b,c"));
        assertEquals("a date like 2026-07-28, please", refused("when", "tomorrow"));
    }

    @Test
    void problemsNameFieldsNotValues() {
        assertEquals(List.of("email: required", "age: at most 130", "extra: not asked for"),
                ElicitationForm.of(SCHEMA).problems(json("{\"age\": 200, \"extra\": \"secret-value\"}")));
        assertEquals(List.of(), ElicitationForm.of(SCHEMA).problems(json("{\"email\": \"a@b\", \"age\": 30}")));
        assertThrows(IllegalArgumentException.class, () -> ElicitationForm.of(json(
                "{\"type\": \"object\", \"properties\": {\"nested\": {\"type\": \"object\"}}}")));
    }
}
