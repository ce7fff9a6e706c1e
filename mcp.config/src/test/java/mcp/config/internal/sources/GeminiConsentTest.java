package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the user decided in Gemini CLI binds: each case is one that {@code gemini mcp list} of Gemini CLI
 * 0.61.0 was run on (scratch HOME, offline), with its verdict as the expected state ({@code Disabled}
 * and {@code Blocked} are inactive here); see docs/discovery.md.
 */
class GeminiConsentTest {

    @TempDir
    Path dir;
    private Fixture f;
    private final GeminiSource source = new GeminiSource();

    @BeforeEach
    void projectAndUserServer() {
        f = Fixture.empty(dir);
        // In the working directory: Gemini CLI reads no other folder's .gemini/settings.json.
        f.write(f.app.resolve(".gemini/settings.json"),
                "{\"mcpServers\": {\"projsrv\": {\"command\": \"sh\", \"args\": [\"-c\", \"touch marker\"]}}}");
        userSettings("");
    }

    private void userSettings(String more) {
        f.write(f.home.resolve(".gemini/settings.json"),
                "{" + more + "\"mcpServers\": {\"usersrv\": {\"httpUrl\": \"http://127.0.0.1:9/u\"}}}");
    }

    private void trust(String rules) {
        f.write(f.home.resolve(".gemini/trustedFolders.json"), rules);
    }

    /** @return name to "active", "untrusted" or "blocked" */
    private Map<String, String> states() {
        return Fixture.states(source.discover(f.context()), reason -> reason.startsWith("the folder ") ? "untrusted"
                : reason.startsWith("blocked") ? "blocked" : reason);
    }

    @Test
    void inAFolderNobodyTrustedNoServerStartsNotEvenTheUsers() {
        assertEquals(Map.of("projsrv", "untrusted", "usersrv", "untrusted"), states());
        assertEquals("the folder " + f.app + " is not trusted in Gemini CLI, which then starts no server: trust it"
                + " when `gemini` asks (or in " + f.home.resolve(".gemini/trustedFolders.json") + ")",
                source.discover(f.context()).inactive().get(0).reason());

        trust("{\"" + f.project + "\": \"DO_NOT_TRUST\"}");
        assertEquals(Map.of("projsrv", "untrusted", "usersrv", "untrusted"), states());
    }

    @Test
    void aTrustedFolderOrParentStartsThem() {
        trust("{\"" + f.project + "\": \"TRUST_FOLDER\"}");
        assertEquals(Map.of("projsrv", "active", "usersrv", "active"), states(), "below a trusted folder");

        trust("{\"" + f.project + "\": \"TRUST_PARENT\"}");
        assertEquals(Map.of("projsrv", "active", "usersrv", "active"), states(), "the key's parent is trusted");

        trust("{\"" + f.project + "\": \"TRUST_FOLDER\", \"" + f.app + "\": \"DO_NOT_TRUST\"}");
        assertEquals(Map.of("projsrv", "untrusted", "usersrv", "untrusted"), states(), "the nearest rule decides");
    }

    @Test
    void withFolderTrustOffEveryServerStarts() {
        userSettings("\"security\": {\"folderTrust\": {\"enabled\": false}}, ");
        assertEquals(Map.of("projsrv", "active", "usersrv", "active"), states());
    }

    @Test
    void allowedAndExcludedBlockServers() {
        trust("{\"" + f.project + "\": \"TRUST_FOLDER\"}");
        userSettings("\"mcp\": {\"allowed\": [\"usersrv\"]}, ");
        assertEquals(Map.of("projsrv", "blocked", "usersrv", "active"), states());

        userSettings("\"mcp\": {\"excluded\": [\"projsrv\"]}, ");
        assertEquals(Map.of("projsrv", "blocked", "usersrv", "active"), states());
    }

    /** Not run against Gemini CLI (it needs a file under /etc): its documented precedence, system settings first. */
    @Test
    void systemSettingsComeFirstAndTheListsOfTheFileOfHighestPrecedenceCount() {
        trust("{\"" + f.project + "\": \"TRUST_FOLDER\"}");
        Path system = f.write(f.managed().resolve("gemini-cli/settings.json"),
                "{\"mcpServers\": {\"syssrv\": {\"command\": \"x\"}, \"usersrv\": {\"command\": \"sys\"}}}");
        userSettings("\"mcp\": {\"excluded\": [\"projsrv\"]},");
        assertEquals(Map.of("syssrv", "active", "usersrv", "active", "projsrv", "blocked"), states());
        assertEquals(java.util.Optional.of(system), source.discover(f.context()).servers().stream()
                .filter(s -> s.name().equals("usersrv")).findFirst().orElseThrow().source().path(),
                "the system's entry comes first, so it wins the merge");

        // The workspace's list overrides the user's, in a trusted folder only.
        f.write(f.app.resolve(".gemini/settings.json"), "{\"mcp\": {\"excluded\": []},"
                + "\"mcpServers\": {\"projsrv\": {\"command\": \"p\"}}}");
        assertEquals(Map.of("syssrv", "active", "usersrv", "active", "projsrv", "active"), states());
        f.write(system, "{\"mcp\": {\"allowed\": [\"syssrv\"]}, \"mcpServers\": {\"syssrv\": {\"command\": \"x\"}}}");
        assertEquals(Map.of("syssrv", "active", "usersrv", "blocked", "projsrv", "blocked"), states());
    }
}
