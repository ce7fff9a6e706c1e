package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * VS Code's {@code mcp.json} files ({@code vscode}, priority 20), as its reference describes them
 * (https://code.visualstudio.com/docs/agents/reference/mcp-configuration): {@code .vscode/mcp.json}
 * in the project and the {@code mcp.json} of the user profile (JSONC), servers under {@code servers}
 * in the common shape with an explicit {@code type}.
 *
 * <p>The user profile is VS Code's user data folder, {@code <appData>/Code/User/mcp.json}, where
 * appData is {@code ~/Library/Application Support} on macOS, {@code %APPDATA%} on Windows and
 * {@code $XDG_CONFIG_HOME} or {@code ~/.config} on Linux, then the same file of VS Code Insiders
 * ({@code Code - Insiders}), which keeps its own profile; {@code VSCODE_APPDATA} (absolute) replaces
 * appData and {@code VSCODE_PORTABLE} (absolute) makes {@code <portable>/user-data/User/mcp.json} the
 * only user file, as VS Code's {@code userDataPath.ts} does. Only the default profile is read: the
 * folders of other profiles are named by ids that VS Code keeps in its state database.
 *
 * <p>VS Code's variables are translated (see {@link Variables#editor}): {@code ${workspaceFolder}} is
 * the directory that holds {@code .vscode}, and, in the user file, the project root; {@code ${env:NAME}}
 * becomes {@code ${NAME}} for mcp-host's own expansion. A server whose values need an
 * {@code ${input:...}} is reported and not returned: VS Code prompts for inputs and keeps them in its
 * secret storage, which mcp-host cannot reach. {@code envFile} (a dotenv file, see {@link EnvFile}, relative to
 * the workspace folder) adds its variables under those of {@code env}; one that cannot be read skips the
 * server. {@code oauth.clientId} becomes the client of an {@code oauth} auth reference.
 * The {@code mcp} key of the user {@code settings.json}, which VS Code moved into {@code mcp.json}
 * (1.102) and no longer documents, is not read.
 *
 * <p>Priority 20, below the agent CLIs and the other editors: a VS Code entry often needs an input
 * mcp-host cannot prompt for, and the same server is usually configured for the agent at hand too.
 */
public final class VsCodeSource extends FileSource {

    private static final List<String> PRODUCTS = List.of("Code", "Code - Insiders");

    private final Platform platform;

    /** Creates the source; ServiceLoader calls this. */
    public VsCodeSource() {
        this(Platform.current());
    }

    VsCodeSource(Platform platform) {
        super("vscode", "VS Code", 20);
        this.platform = platform;
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        Map<String, String> environment = search.environment();
        Optional<Path> portable = SearchPath.absolutePath(environment.get("VSCODE_PORTABLE"));
        if (portable.isPresent()) {
            return List.of(portable.get().resolve("user-data/User/mcp.json").normalize());
        }
        Path appData = SearchPath.absolutePath(environment.get("VSCODE_APPDATA"))
                .orElseGet(() -> platform.appData(search.home(), environment));
        List<Path> files = new ArrayList<>();
        for (String product : PRODUCTS) {
            files.add(appData.resolve(product).resolve("User/mcp.json").normalize());
        }
        return files;
    }

    @Override
    List<String> projectFiles() {
        return List.of(".vscode/mcp.json");
    }

    @Override
    Optional<String> container(ObjectNode root) {
        return Optional.of("servers");
    }

    @Override
    Variables variables(ConfigFile file, SearchPath search) {
        return Variables.editor(file.directory(), search.home());
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        EnvFile.apply(entry, spec);
        if (spec.auth.isEmpty()) {
            spec.auth = OAuthClient.read(entry, "oauth", Map.of("clientId", "clientId"));
        }
    }
}
