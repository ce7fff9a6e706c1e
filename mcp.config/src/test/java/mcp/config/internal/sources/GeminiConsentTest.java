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

    /**
     * Extensions as Gemini CLI documents them (https://github.com/google-gemini/gemini-cli/blob/main/docs/extensions/reference.md)
     * and as Gemini CLI 0.61.0 did after `gemini extensions install` of such an extension: its server is listed
     * "(from myext)" with the variables replaced; a workspace's .gemini/extensions is not read; an untrusted
     * folder disables it too. The enablement rules are the ones `gemini extensions disable` wrote; `gemini mcp
     * list` still listed the servers of a disabled extension, so their effect follows Gemini's documentation.
     */
    @Test
    void extensionsOfTheUserCountWithTheirVariablesAndTheirEnablement() {
        trust("{\"" + f.project + "\": \"TRUST_FOLDER\"}");
        Path ext = f.home.resolve(".gemini/extensions/myext");
        f.write(ext.resolve("gemini-extension.json"), "{\"name\": \"myext\", \"version\": \"1.0.0\", \"mcpServers\": {"
                + "\"extsrv\": {\"command\": \"node\", \"args\": [\"${extensionPath}${/}srv.js\", \"${workspacePath}\"]},"
                + "\"usersrv\": {\"command\": \"loses-to-the-settings\"}}}");
        f.write(f.app.resolve(".gemini/extensions/wext/gemini-extension.json"),
                "{\"name\": \"wext\", \"mcpServers\": {\"wsrv\": {\"command\": \"never\"}}}");
        mcp.api.spi.CapabilitySource.Result result = source.discover(f.context());
        assertEquals(java.util.List.of("projsrv", "usersrv", "extsrv", "usersrv"), Fixture.names(result));
        mcp.api.ServerSpec extsrv = Fixture.server(result, "extsrv");
        assertEquals(java.util.List.of(ext + "/srv.js", f.app.toString()), extsrv.args());

        Path enablement = f.write(f.home.resolve(".gemini/extensions/extension-enablement.json"),
                "{\"myext\": {\"overrides\": [\"" + f.home + "/*\", \"!" + f.project + "/*\"]}}");
        result = source.discover(f.context());
        assertEquals(java.util.List.of("projsrv", "usersrv"), Fixture.names(result));
        assertEquals(java.util.List.of("extsrv", "usersrv"), result.inactive().stream().map(i -> i.server().name()).toList());
        assertEquals(mcp.api.OwnerState.Kind.DISABLED_FOR_PROJECT, result.inactive().get(0).server().owner().orElseThrow().kind());
        assertEquals("the Gemini CLI extension \"myext\" is disabled here (rule \"!" + f.project + "/*\" in " + enablement
                + "): enable it with `gemini extensions enable myext --scope workspace`", result.inactive().get(0).reason());

        f.write(enablement, "{\"myext\": {\"overrides\": [\"!" + f.project + "/*\", \"" + f.app + "\"]}}");
        assertEquals(java.util.List.of("projsrv", "usersrv", "extsrv", "usersrv"), Fixture.names(source.discover(f.context())),
                "the last matching rule wins; without '*' the folder itself");

        trust("{}");
        assertEquals(java.util.List.of(), Fixture.names(source.discover(f.context())), "an untrusted folder: none");
    }
}
