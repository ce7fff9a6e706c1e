package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What Gemini CLI passes on of its environment (its environmentSanitization; FIX_TOKEN of AgentFixturesTest). */
class GeminiEnvironmentTest {

    @Test
    void secretLookingNamesAndValuesStayBehind() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/bin");
        env.put("FIX_VAR", "from-env");
        env.put("FIX_TOKEN", "tok-123");
        env.put("my_api_key", "x");
        env.put("DATABASE_URL", "postgres://db");
        env.put("HARMLESS", "https://user:pw@example.com/");
        env.put("GEMINI_CLI_TOKEN", "kept");
        assertEquals(List.of("PATH", "FIX_VAR", "GEMINI_CLI_TOKEN"), GeminiEnvironment.inherited(env));
    }

    @Test
    void onGitHubActionsOnlyTheAlwaysAllowedOnesPass() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", "/home/u");
        env.put("FIX_VAR", "from-env");
        env.put("GITHUB_SHA", "abc");
        assertEquals(List.of("HOME"), GeminiEnvironment.inherited(env));
    }
}
