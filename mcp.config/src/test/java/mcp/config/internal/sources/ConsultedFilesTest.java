package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import mcp.api.ConsultedFile;
import mcp.api.ConsultedFile.State;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.spi.CapabilitySource;
import mcp.config.Discovery;
import mcp.config.DiscoveryResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What discovery says it read or looked for: what a host watching its configs watches. */
class ConsultedFilesTest {

    @TempDir
    Path temp;

    private static Discovery.Builder discovery(Fixture fixture) {
        return Discovery.builder().home(fixture.home).workingDirectory(fixture.app)
                .environment(Map.of("HOME", fixture.home.toString(),
                        ClaudePolicy.DIRECTORY_VARIABLE, fixture.managed().toString(),
                        GeminiSource.SYSTEM_SETTINGS_VARIABLE, fixture.managed().resolve("gemini.json").toString()))
                .managedPolicy(fixture.managed().resolve("managed-mcp-host.json"))
                .approvals(mcp.consent.Approvals.at(fixture.root.resolve("state/approvals.json")));
    }

    private static Map<Path, State> states(DiscoveryResult result) {
        return result.consultedFiles().stream().collect(Collectors.toMap(ConsultedFile::path, ConsultedFile::state));
    }

    @Test
    void filesReadMissingAndBrokenAreAllNamedWithWhatWasFound() {
        Fixture fixture = Fixture.empty(temp);
        Path user = fixture.write(fixture.home.resolve(".config/mcp-host/mcp.json"),
                "{\"mcpServers\": {\"u\": {\"command\": \"srv\"}}}");
        Path broken = fixture.write(fixture.project.resolve(".cursor/mcp.json"), "{\"mcpServers\": {\"c\": ");
        Path extensions = fixture.home.resolve(".gemini/extensions");
        fixture.write(extensions.resolve("ext/gemini-extension.json"), "{\"name\": \"ext\"}");
        Path project = fixture.write(fixture.project.resolve(".mcp-host/mcp.json"),
                "{\"mcpServers\": {\"p\": {\"command\": \"srv\"}}}");

        DiscoveryResult result = discovery(fixture).build().discover();
        Map<Path, State> states = states(result);

        assertEquals(State.READ, states.get(user));
        assertEquals(State.READ, states.get(project));
        assertEquals(State.UNREADABLE, states.get(broken), "a file that does not parse is named as such");
        assertEquals(State.MISSING, states.get(fixture.app.resolve(".mcp.json")),
                "a project file that may come later is watched too");
        assertEquals(State.MISSING, states.get(fixture.root.resolve(".mcp.json")),
                "Claude Code's .mcp.json of every folder up to the root");
        assertEquals(State.MISSING, states.get(fixture.home.resolve(".codex/config.toml")));
        assertEquals(State.LISTED, states.get(extensions), "a directory whose entries count");
        assertEquals(State.READ, states.get(extensions.resolve("ext/gemini-extension.json")));
        assertEquals(State.MISSING, states.get(fixture.managed().resolve("managed-mcp-host.json")),
                "mcp-host's own policy, absent");
        assertEquals(State.MISSING, states.get(fixture.managed().resolve("managed-mcp.json")),
                "Claude Code's managed servers, absent");
        assertEquals(State.MISSING, states.get(fixture.root.resolve("state/approvals.json")),
                "the approvals, consulted for the project server");
        assertEquals(result.consultedFiles().size(), states.size(), "each file once");
        assertTrue(result.consultedFiles().stream().allMatch(file -> file.path().isAbsolute()));
    }

    @Test
    void anEnvFileAnEntryNamesIsConsultedToo() {
        Fixture fixture = Fixture.empty(temp);
        fixture.write(fixture.project.resolve(".vscode/mcp.json"),
                "{\"servers\": {\"v\": {\"command\": \"srv\", \"envFile\": \"${workspaceFolder}/.env\"}}}");

        Map<Path, State> states = states(discovery(fixture).approveProjectServers(true).build().discover());

        assertEquals(State.MISSING, states.get(fixture.project.resolve(".env")), states::toString);
        fixture.write(fixture.project.resolve(".env"), "A=1\n");
        assertEquals(State.READ, states(discovery(fixture).approveProjectServers(true).build().discover())
                .get(fixture.project.resolve(".env")));
    }

    @Test
    void aPluginNamesItsOwnFilesInItsResult() {
        Fixture fixture = Fixture.empty(temp);
        Path own = fixture.root.resolve("plugin/servers.yaml");
        CapabilitySource plugin = new CapabilitySource() {
            @Override
            public String id() {
                return "plugin";
            }

            @Override
            public String displayName() {
                return "A plugin";
            }

            @Override
            public int priority() {
                return 1;
            }

            @Override
            public Result discover(Context context) {
                return new Result(List.of(ServerSpec.builder("from-plugin", new SourceMetadata("plugin", "A plugin",
                        Optional.of(own), SourceMetadata.Level.USER)).command("srv").build()), List.of(), List.of(),
                        List.of(new ConsultedFile(own, State.READ)));
            }
        };

        DiscoveryResult result = discovery(fixture).loadSources(false).sources(List.of(plugin)).build().discover();

        assertEquals(List.of("from-plugin"), List.copyOf(result.configs().keySet()));
        assertEquals(State.READ, states(result).get(own));
    }

    @Test
    void twoDiscoveriesAtOnceEachNameOnlyTheirOwnFiles() throws Exception {
        Fixture one = Fixture.empty(temp.resolve("one"));
        Fixture two = Fixture.empty(temp.resolve("two"));
        Path oneFile = one.write(one.project.resolve(".cursor/mcp.json"), "{\"mcpServers\": {}}");
        Path twoFile = two.write(two.project.resolve(".cursor/mcp.json"), "{\"mcpServers\": {}}");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                Callable<DiscoveryResult> first = () -> discovery(one).build().discover();
                Callable<DiscoveryResult> second = () -> discovery(two).build().discover();
                Future<DiscoveryResult> a = pool.submit(first);
                Future<DiscoveryResult> b = pool.submit(second);
                Map<Path, State> fromOne = states(a.get(30, TimeUnit.SECONDS));
                Map<Path, State> fromTwo = states(b.get(30, TimeUnit.SECONDS));
                assertEquals(State.READ, fromOne.get(oneFile));
                assertEquals(State.READ, fromTwo.get(twoFile));
                assertFalse(fromOne.keySet().stream().anyMatch(p -> p.startsWith(two.root)), "round " + round);
                assertFalse(fromTwo.keySet().stream().anyMatch(p -> p.startsWith(one.root)), "round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(Files.exists(oneFile));
    }
}
