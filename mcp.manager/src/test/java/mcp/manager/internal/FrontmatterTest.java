package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The frontmatter of a SKILL.md: the block found, the YAML read as JSON, and the comparison with an entry's. */
class FrontmatterTest {

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    private static JsonNode parsed(String skillMd) throws Frontmatter.Unreadable {
        return Frontmatter.parse(Frontmatter.split(skillMd).yaml());
    }

    @Test
    void theBlockIsBetweenTheFirstTwoDelimiterLines() throws Exception {
        Frontmatter.Split split = Frontmatter.split("\uFEFF--- \r\nname: a\r\n---\t\r\nbody\n---\nmore\n");
        assertEquals("name: a\r\n", split.yaml());
        assertEquals("body\n---\nmore\n", split.body());
        assertEquals("", Frontmatter.split("---\nname: a\n---").body());
        for (String bad : List.of("name: a\n---\n", "\n---\nname: a\n---\n", "---\nname: a\n", "----\nname: a\n---\n",
                "")) {
            assertThrows(Frontmatter.Unreadable.class, () -> Frontmatter.split(bad), bad);
        }
    }

    @Test
    void yamlBecomesJsonWithAliasesResolvedAndTheCoreSchemasTypes() throws Exception {
        JsonNode fm = parsed("---\nname: a\ndescription: >-\n  folded\n  text\nbase: &b {x: 1}\ncopy: *b\n"
                + "flags: [true, True, ~, null, 0x10, 1.5, \"2\", 2024-01-01]\n---\n");
        assertEquals(json("{\"name\":\"a\",\"description\":\"folded text\",\"base\":{\"x\":1},\"copy\":{\"x\":1},"
                + "\"flags\":[true,true,null,null,16,1.5,\"2\",\"2024-01-01\"]}"), fm);
    }

    @Test
    void whatIsNotAnUnambiguousMappingIsUnreadable() {
        for (String yaml : List.of("name: a\nname: b\n", "- a\n- b\n", "just text\n", "", "a: [unclosed\n",
                "a: *nowhere\n", "a: &x [*x]\n")) {
            Frontmatter.Unreadable e = assertThrows(Frontmatter.Unreadable.class, () -> Frontmatter.parse(yaml), yaml);
            assertTrue(e.getMessage().startsWith("its frontmatter"), e.getMessage());
        }
    }

    @Test
    void anAliasBombIsRefused() {
        StringBuilder yaml = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < 10; i++) {
            yaml.append("a").append(i).append(": &a").append(i).append(" [");
            for (int j = 0; j < 10; j++) {
                yaml.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
            }
            yaml.append("]\n");
        }
        assertThrows(Frontmatter.Unreadable.class, () -> Frontmatter.parse(yaml.toString()));
    }

    @Test
    void theComparisonIsFieldByFieldWithNumbersByValue() throws Exception {
        JsonNode file = parsed("---\nname: a\ndescription: d\nversion: 2.0\nmetadata: {k: [1, 2]}\n---\n");
        assertEquals(List.of(), Frontmatter.differences(file,
                json("{\"metadata\":{\"k\":[1,2.0]},\"version\":2,\"description\":\"d\",\"name\":\"a\"}")));
        assertEquals(List.of("description: the file has \"d\", the entry \"e\"",
                "license: the file has no such field, the entry \"MIT\"",
                "metadata: the file has {\"k\":[1,2]}, the entry {\"k\":[2,1]}"),
                Frontmatter.differences(file, json("{\"name\":\"a\",\"description\":\"e\",\"version\":2,"
                        + "\"metadata\":{\"k\":[2,1]},\"license\":\"MIT\"}")));
        // A null in the entry is not an absent field, nor a string "null".
        JsonNode nulled = parsed("---\nname: a\nx: ~\n---\n");
        assertEquals(1, Frontmatter.differences(nulled, json("{\"name\":\"a\"}")).size());
        assertEquals(1, Frontmatter.differences(nulled, json("{\"name\":\"a\",\"x\":\"null\"}")).size());
        assertEquals(0, Frontmatter.differences(nulled, json("{\"name\":\"a\",\"x\":null}")).size());
        assertTrue(!Frontmatter.same(json("1"), json("\"1\"")) && !Frontmatter.same(json("true"), json("\"true\"")));
    }
}
