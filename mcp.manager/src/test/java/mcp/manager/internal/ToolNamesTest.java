package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ToolNamesTest {

    @Test
    void followsTheRule() {
        assertEquals("mcp_github_create_issue", ToolNames.baseName("GitHub", "create-issue"));
        assertEquals("mcp_my_server_tool_2", ToolNames.baseName("My Server!", "Tool 2"));
        assertEquals("mcp_git_status", ToolNames.baseName("git", "git_status"), "the server prefix goes once");
        assertEquals("mcp_git_git_log", ToolNames.baseName("git", "git_git_log"));
        assertEquals("mcp_server_tool", ToolNames.baseName("!!!", "..."));
        assertEquals("mcp_a_b", ToolNames.baseName("__a__", "--b--"));
        assertEquals("mcp_x_v1_2_3", ToolNames.baseName("x", "v1.2.3"), "digits are kept");
        assertEquals("mcp_caf_tool", ToolNames.baseName("café", "tool"));
    }

    @Test
    void longNamesGetAStableHashSuffix() {
        String tool = "a_really_long_tool_name_that_goes_on_and_on_and_on_forever_and_ever";
        String name = ToolNames.baseName("server", tool);
        assertTrue(name.length() <= 64 && name.length() >= 60, name);
        assertTrue(name.matches("mcp_server_a_really_long_.*_[0-9a-f]{8}"), name);
        assertEquals(name, ToolNames.baseName("server", tool));
        assertNotEquals(name, ToolNames.baseName("server", tool + "_2"));
    }

    @Test
    void collisionsGetDeterministicSuffixes() {
        List<ToolNames.Key> keys = List.of(new ToolNames.Key("a", "b_c"), new ToolNames.Key("a_b", "c"),
                new ToolNames.Key("A", "B-C"));
        List<String> names = ToolNames.assign(keys);
        assertEquals("mcp_a_b_c", names.get(0));
        assertTrue(names.get(1).matches("mcp_a_b_c_[0-9a-f]{6}"), names.get(1));
        assertEquals(3, names.stream().distinct().count());
        assertEquals(names, ToolNames.assign(keys));
    }
}
