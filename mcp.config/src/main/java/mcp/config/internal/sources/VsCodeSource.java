package mcp.config.internal.sources;

import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * VS Code's workspace file ({@code vscode}, priority 20): {@code .vscode/mcp.json} in the project
 * (JSONC), servers under {@code servers} in the common shape with an explicit {@code type}.
 *
 * <p>VS Code's variables are translated (see {@link Variables#editor}): {@code ${workspaceFolder}}
 * is the directory that holds {@code .vscode}, {@code ${env:NAME}} becomes {@code ${NAME}} for
 * mcp-host's own expansion. A server whose values need an {@code ${input:...}} is reported and not
 * returned: VS Code prompts for inputs and keeps them in its secret storage, which mcp-host cannot
 * reach. {@code envFile} is reported as unsupported and ignored; the server still loads.
 */
public final class VsCodeSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public VsCodeSource() {
        super("vscode", "VS Code", 20);
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
        if (entry.has("envFile")) {
            entry.note("envFile", "\"envFile\" is not supported by mcp-host and is ignored; set the variables in \"env\"");
        }
    }
}
