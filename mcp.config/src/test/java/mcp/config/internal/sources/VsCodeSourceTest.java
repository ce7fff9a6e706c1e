package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VsCodeSourceTest {

    private final VsCodeSource source = new VsCodeSource();

    @Test
    void readsServersWithCommentsVariablesAndReportsInputsAndEnvFile(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());
        Path file = f.project.resolve(".vscode/mcp.json");

        assertEquals(List.of(
                new Problem(file, "/servers/Perplexity/env/PERPLEXITY_API_KEY", "Perplexity",
                        "server \"Perplexity\" uses input \"${input:perplexity-key}\", which mcp-host cannot prompt for;"
                                + " set the value in the file or an environment variable"),
                new Problem(file, "/servers/workspace-files/envFile", "workspace-files",
                        "\"envFile\" is not supported by mcp-host and is ignored; set the variables in \"env\"")),
                result.problems());
        // Not the decoy in work/.vscode above the repository root.
        assertEquals(List.of("fetch", "github", "workspace-files"), names(result));

        ServerSpec fetch = server(result, "fetch");
        assertSource(source, file, Level.PROJECT, "/servers/fetch", fetch);
        assertEquals(Optional.of("stdio"), fetch.type());
        assertEquals(Optional.of("uvx"), fetch.command());
        assertEquals(List.of("mcp-server-fetch"), fetch.args());

        ServerSpec github = server(result, "github");
        assertEquals(Optional.of("http"), github.type());
        assertEquals(Optional.of("https://api.githubcopilot.com/mcp/"), github.url());

        ServerSpec files = server(result, "workspace-files");
        assertSource(source, file, Level.PROJECT, "/servers/workspace-files", files);
        assertEquals(List.of(f.project + "/tools/server.js", "--root", f.project.toString()), files.args(),
                "${workspaceFolder} is the folder that holds .vscode, not the working directory");
        assertEquals(Map.of("TOKEN", "${MY_TOKEN}", "CACHE_DIR", f.home + "/.cache/ws"), files.env());
    }

    @Test
    void otherVariablesAreTranslatedOrLeftAsWritten(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.app.resolve(".vscode/mcp.json"), "{\"servers\": {\"s\": {\"command\": \"c\", \"args\": ["
                + "\"${workspaceFolderBasename}\", \"a${pathSeparator}b${/}c\", \"${config:editor.x}\", \"${unclosed\", \"$${env:X}\"]}}}");
        ServerSpec s = server(source.discover(f.context()), "s");
        assertEquals(List.of("app", "a/b/c", "${config:editor.x}", "${unclosed", "$${X}"), s.args());
    }

    @Test
    void oneInputProblemPerServerNamingTheFirstInput(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.project.resolve(".vscode/mcp.json"), "{\"servers\": {"
                + "\"two-inputs\": {\"type\": \"http\", \"url\": \"https://x/${input:tenant}\", \"headers\": {\"Authorization\": \"${input:token}\"}},"
                + "\"fine\": {\"type\": \"stdio\", \"command\": \"ok\"}}}");
        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(file, "/servers/two-inputs/url", "two-inputs",
                "server \"two-inputs\" uses input \"${input:tenant}\", which mcp-host cannot prompt for;"
                        + " set the value in the file or an environment variable")), result.problems());
        assertEquals(List.of("fine"), names(result));
    }
}
