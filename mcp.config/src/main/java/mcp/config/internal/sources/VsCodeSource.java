package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.Sandbox;
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
 * <p>{@code "sandboxEnabled": true} on a stdio entry runs it in a sandbox, with the rules of the file's
 * {@code sandbox} object (see {@link #sandbox}); where no sandbox can be had, the server is not started (VS Code
 * would run it unsandboxed on Windows; mcp-host does not).
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
        spec.sandbox = sandbox(entry, spec);
    }

    /** What VS Code's sandbox runtime is told to let every sandboxed server write, beside the rules. */
    static final String NPM_CACHE = "~/.npm";

    /**
     * The sandbox of a stdio entry with {@code "sandboxEnabled": true}, as VS Code's {@code McpSandboxService}
     * builds it: the file's {@code sandbox} object (VS Code keeps one per {@code mcp.json}, beside
     * {@code servers}), then the entry's own {@code sandbox} (where VS Code's documentation shows it; its code
     * reads the file's), then VS Code's defaults: the entry's {@code cwd} and {@code ~/.npm} writable. VS Code also
     * lets every sandboxed server reach the npm registry's host, for {@code npx}; bubblewrap cannot grant one
     * domain, so mcp-host grants none: the server gets no network unless the rules grant all of it. VS Code ignores
     * the setting for a remote server, and so does mcp-host.
     */
    private static Optional<Sandbox> sandbox(ServerEntry entry, SpecBuilder spec) {
        Optional<Boolean> enabled = entry.bool("sandboxEnabled");
        boolean stdio = spec.type.map(type -> type.equals("stdio")).orElse(spec.url.isEmpty());
        if (!enabled.orElse(false) || !stdio) {
            return Optional.empty();
        }
        Sandbox rules = Sandbox.DEFAULT;
        Optional<Sandbox> file = entry.besideServers("sandbox").flatMap(object -> SandboxShape.read(object, false));
        Optional<Sandbox> own = entry.nested("sandbox").flatMap(object -> SandboxShape.read(object, false));
        rules = rules.with(file.orElse(Sandbox.DEFAULT)).with(own.orElse(Sandbox.DEFAULT));
        List<String> writable = new ArrayList<>();
        spec.cwd.ifPresent(writable::add);
        writable.add(NPM_CACHE);
        rules = rules.with(new Sandbox(new Sandbox.Filesystem(writable, List.of(), List.of()), Sandbox.Network.NONE));
        if (rules.network().any()) {
            // VS Code's sandbox runtime refuses "*" and fails the server; it must not run wider here.
            entry.error(entry.pointer(), "server \"" + entry.name() + "\": \"sandbox\".\"network\".\"allowedDomains\""
                    + " holds \"*\", which VS Code's sandbox runtime refuses (it does not start the server)");
            return Optional.empty();
        }
        return entry.failed() ? Optional.empty() : Optional.of(rules);
    }
}
