package mcp.cli.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import mcp.api.McpJson;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.consent.ServerDefinition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code add}: a server entry in mcp-host's own config file, validated before anything is written. */
@Command(name = "add",
        description = {
            "Add a server to mcp-host's config: the user file by default, the project file with --project, or the"
                    + " --config file. The entry is validated first; nothing is written when it is invalid.",
            "User file: $XDG_CONFIG_HOME/mcp-host/mcp.json, else ~/.config/mcp-host/mcp.json.",
            "Project file: .mcp-host/mcp.json in the project directory."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  mcp-host add git -- uvx mcp-server-git",
            "  mcp-host add docs --url https://docs.example/mcp --header X-Key=DOCS_KEY"})
final class AddCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "NAME", description = "The server name (letters, digits, _ . -).")
    String name;

    @Parameters(index = "1..*", paramLabel = "COMMAND", description = "After --: the command and its arguments (stdio).")
    List<String> command = new ArrayList<>();

    @Option(names = "--project", description = "Write the project file .mcp-host/mcp.json instead of the user file.")
    boolean project;

    @Option(names = "--type", paramLabel = "stdio|http|sse",
            description = "The transport (default: stdio with a command, http with --url).")
    String type;

    @Option(names = "--url", paramLabel = "URL", description = "The endpoint of an http or sse server.")
    String url;

    @Option(names = "--env", paramLabel = "K=V", description = "An environment variable of a stdio server (repeatable).")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(names = "--header", paramLabel = "K=V", description = "An HTTP header of an http/sse server (repeatable).")
    Map<String, String> headers = new LinkedHashMap<>();

    @Option(names = "--timeout", paramLabel = "MS", description = "Connect and request timeout (default: 30000).")
    Long timeoutMillis;

    @Option(names = "--disabled", description = "Add it with \"enabled\": false.")
    boolean disabled;

    @Option(names = "--force", description = "Replace an entry of the same name in that file.")
    boolean force;

    @Override
    public Integer call() {
        CliContext context = root.context();
        Path file = context.configFile().orElse(project ? context.projectConfigFile() : context.userConfigFile());
        List<String> problems = Edits.validate(spec(file));
        if (!problems.isEmpty()) {
            throw CliException.usage(String.join("; ", problems) + "; nothing was written");
        }
        ConfigFileEditor editor = ConfigFileEditor.open(file);
        boolean replacing = editor.server(name).isPresent();
        if (replacing && !force) {
            throw CliException.usage("MCP server \"" + name + "\" is already in " + file
                    + "; use --force to replace it, or remove it first");
        }
        editor.putServer(name, entry());
        editor.save();
        if (project && context.configFile().isEmpty()) {
            // The user wrote this definition just now: that is the approval a project server needs.
            try {
                Consents.store(context).approve(file, name, ServerDefinition.of(spec(file)));
            } catch (IOException e) {
                context.warn("MCP server \"" + name + "\" was added but not approved (" + e.getMessage()
                        + "); run mcp-host approve " + name);
            }
        }
        Edits.report(context, replacing ? "replaced" : "added", name, file);
        return ExitCodes.OK;
    }

    /** The entry as validation sees it, so the messages are discovery's own. */
    private ServerSpec spec(Path file) {
        SourceMetadata source = new SourceMetadata("native", "mcp-host", Optional.of(file),
                project ? SourceMetadata.Level.PROJECT : SourceMetadata.Level.USER);
        Optional<String> executable = command.isEmpty() ? Optional.empty() : Optional.of(command.get(0));
        List<String> args = command.isEmpty() ? List.of() : command.subList(1, command.size());
        // The native format, as NativeSource reads it back: its values may use mcp-host's own syntax.
        return ServerSpec.builder(name, source).location("/mcpServers/" + name).type(Optional.ofNullable(type))
                .command(executable).args(args).env(env).url(Optional.ofNullable(url)).headers(headers)
                .timeoutMillis(Optional.ofNullable(timeoutMillis)).enabled(!disabled).valueReferences(true).build();
    }

    /** The native format, keys in the order people write them; defaults are left out. */
    private ObjectNode entry() {
        ObjectNode entry = McpJson.object();
        if (type != null) {
            entry.put("type", type);
        }
        if (!command.isEmpty()) {
            entry.put("command", command.get(0));
            if (command.size() > 1) {
                ArrayNode args = entry.putArray("args");
                command.subList(1, command.size()).forEach(args::add);
            }
        }
        if (!env.isEmpty()) {
            ObjectNode node = entry.putObject("env");
            env.forEach(node::put);
        }
        if (url != null) {
            entry.put("url", url);
        }
        if (!headers.isEmpty()) {
            ObjectNode node = entry.putObject("headers");
            headers.forEach(node::put);
        }
        if (timeoutMillis != null) {
            entry.put("timeout", timeoutMillis.longValue());
        }
        if (disabled) {
            entry.put("enabled", false);
        }
        return entry;
    }
}
