package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import mcp.api.ServerSpec;
import mcp.api.spi.CapabilitySource.Inactive;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the user decided in Claude Code binds: each case is one that {@code claude mcp list} of Claude
 * Code 2.1.328 was run on (scratch HOME, offline), with its verdict as the expected state; see
 * docs/discovery.md.
 */
class ClaudeConsentTest {

    @TempDir
    Path dir;
    private Fixture f;
    private final ClaudeSource source = new ClaudeSource();

    @BeforeEach
    void projectWithTwoServersAndAUserServer() {
        f = Fixture.empty(dir);
        f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": {"
                + "\"marker\": {\"command\": \"sh\", \"args\": [\"-c\", \"touch marker\"]},"
                + "\"other\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/mcp\"}}}");
        claudeJson(null, "{}");
    }

    /** {@code ~/.claude.json} with a user server and, for {@code key}, the project entry given. */
    private void claudeJson(Path key, String projectEntry) {
        f.write(f.home.resolve(".claude.json"), "{\"mcpServers\": {\"usersrv\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/u\"}}"
                + (key == null ? "" : ", \"projects\": {\"" + key + "\": " + projectEntry + "}") + "}");
    }

    /** @return name to "active", "pending", "declined" or "disabled for project" */
    private Map<String, String> states() {
        return Fixture.states(source.discover(f.context()), reason -> reason.startsWith("pending approval") ? "pending"
                : reason.startsWith("declined") ? "declined"
                : reason.startsWith("disabled for this project") ? "disabled for project" : reason);
    }

    @Test
    void projectServersArePendingUntilApprovedAndTheReasonSaysHowToApprove() {
        assertEquals(Map.of("marker", "pending", "other", "pending", "usersrv", "active"), states());
        Inactive marker = source.discover(f.context()).inactive().get(0);
        assertEquals("marker", marker.server().name());
        assertEquals(f.project.resolve(".mcp.json"), marker.server().source().path().orElseThrow());
        assertEquals("pending approval in Claude Code (the folder " + f.project + " is not trusted in Claude Code):"
                + " approve it in `claude` (/mcp), or name it in enabledMcpjsonServers of ~/.claude/settings.json",
                marker.reason());
    }

    @Test
    void theUsersSettingsApproveWithoutTrust() {
        f.write(f.home.resolve(".claude/settings.json"), "{\"enabledMcpjsonServers\": [\"marker\"]}");
        assertEquals(Map.of("marker", "active", "other", "pending", "usersrv", "active"), states());

        f.write(f.home.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true}");
        assertEquals(Map.of("marker", "active", "other", "active", "usersrv", "active"), states());
    }

    @Test
    void aDeclineWinsOverAnyApproval() {
        claudeJson(f.project, "{\"hasTrustDialogAccepted\": true, \"enabledMcpjsonServers\": [\"marker\"]}");
        f.write(f.home.resolve(".claude/settings.json"),
                "{\"enabledMcpjsonServers\": [\"marker\"], \"disabledMcpjsonServers\": [\"marker\"]}");
        f.write(f.project.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true}");
        assertEquals(Map.of("marker", "declined", "other", "active", "usersrv", "active"), states());
    }

    @Test
    void theProjectsOwnSettingsApproveOnlyInATrustedFolder() {
        f.write(f.project.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true}");
        f.write(f.project.resolve(".claude/settings.local.json"), "{\"enabledMcpjsonServers\": [\"other\"]}");
        claudeJson(f.project, "{\"enabledMcpjsonServers\": [\"marker\"]}");
        assertEquals(Map.of("marker", "pending", "other", "pending", "usersrv", "active"), states(),
                "a cloned repository cannot approve its own servers");

        claudeJson(f.project, "{\"hasTrustDialogAccepted\": true}");
        assertEquals(Map.of("marker", "active", "other", "active", "usersrv", "active"), states());
    }

    @Test
    void eachTrustedPlaceApprovesOnItsOwn() {
        claudeJson(f.project, "{\"hasTrustDialogAccepted\": true}");
        assertEquals(Map.of("marker", "pending", "other", "pending", "usersrv", "active"), states(),
                "trust alone approves nothing");

        f.write(f.project.resolve(".claude/settings.local.json"), "{\"enabledMcpjsonServers\": [\"other\"]}");
        assertEquals(Map.of("marker", "pending", "other", "active", "usersrv", "active"), states());

        f.write(f.project.resolve(".claude/settings.local.json"), "{}");
        claudeJson(f.project, "{\"hasTrustDialogAccepted\": true, \"enabledMcpjsonServers\": [\"other\"]}");
        assertEquals(Map.of("marker", "pending", "other", "active", "usersrv", "active"), states(),
                "the lists Claude Code kept in ~/.claude.json");
    }

    @Test
    void theProjectIsTheRepositoryRootAndAParentsTrustDoesNotCount() {
        f.write(f.project.resolve(".claude/settings.local.json"), "{\"enabledMcpjsonServers\": [\"other\"]}");
        claudeJson(f.work, "{\"hasTrustDialogAccepted\": true}");
        assertEquals(Map.of("marker", "pending", "other", "pending", "usersrv", "active"), states());

        // Run from packages/app: the repository root is still the project Claude Code keys.
        claudeJson(f.app, "{\"hasTrustDialogAccepted\": true}");
        assertEquals(Map.of("marker", "pending", "other", "pending", "usersrv", "active"), states());
        claudeJson(f.project, "{\"hasTrustDialogAccepted\": true}");
        assertEquals(Map.of("marker", "pending", "other", "active", "usersrv", "active"), states());
    }

    @Test
    void aServerDisabledForTheProjectIsInactiveWhateverItsScope() {
        claudeJson(f.project, "{\"disabledMcpServers\": [\"usersrv\", \"marker\"]}");
        f.write(f.home.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true}");
        assertEquals(Map.of("marker", "disabled for project", "other", "active", "usersrv", "disabled for project"),
                states());
    }

    @Test
    void aBrokenSettingsFileIsAProblemOfThatFileAndApprovesNothing() {
        Path settings = f.write(f.home.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true,");
        Result result = source.discover(f.context());
        assertEquals(1, result.problems().size(), result.problems()::toString);
        assertEquals(settings, result.problems().get(0).file());
        assertEquals(List.of("usersrv"), result.servers().stream().map(ServerSpec::name).toList());
        assertTrue(result.inactive().stream().allMatch(i -> i.reason().startsWith("pending approval")));
    }
}
