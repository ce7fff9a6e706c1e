package mcp.cli.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.internal.Secrets;
import mcp.config.ConfigValidation;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import tools.jackson.databind.node.ObjectNode;

/** What {@code add}, {@code remove}, {@code enable} and {@code disable} share: finding the file, reporting. */
final class Edits {

    /** The id of mcp-host's own capability source: the only files the command line edits. */
    static final String NATIVE = "native";

    private Edits() {
    }

    /**
     * Finds the native config file that defines a server: the {@code --config} file if given, else
     * project files first (nearest first, as discovery found them), then the user file.
     *
     * @param context the command
     * @param name the server
     * @param projectOnly look at project files only
     * @return an editor of that file
     * @throws CliException (usage) when no native file defines it, naming where it comes from instead
     */
    static ConfigFileEditor locate(CliContext context, String name, boolean projectOnly) {
        if (context.configFile().isPresent()) {
            ConfigFileEditor editor = ConfigFileEditor.open(context.configFile().get());
            if (editor.server(name).isEmpty()) {
                throw CliException.usage("MCP server \"" + name + "\" is not in " + editor.file());
            }
            return editor;
        }
        DiscoveryResult discovery = context.discover();
        Set<Path> candidates = new LinkedHashSet<>();
        nativeSources(discovery, name).stream()
                .filter(source -> !projectOnly || source.level() == SourceMetadata.Level.PROJECT)
                .sorted(Comparator.comparing(source -> source.level() == SourceMetadata.Level.PROJECT ? 0 : 1))
                .forEach(source -> candidates.add(source.path().get()));
        // Discovery skips a file that does not parse; reading it here reports where it is broken.
        candidates.add(context.projectConfigFile());
        if (!projectOnly) {
            candidates.add(context.userConfigFile());
        }
        for (Path file : candidates) {
            ConfigFileEditor editor = ConfigFileEditor.open(file);
            if (editor.server(name).isPresent()) {
                return editor;
            }
        }
        throw notNative(discovery, name, projectOnly);
    }

    private static List<SourceMetadata> nativeSources(DiscoveryResult discovery, String name) {
        List<SourceMetadata> sources = new ArrayList<>();
        if (discovery.configs().containsKey(name)) {
            sources.add(discovery.sources().get(name));
        }
        discovery.skipped().stream().filter(s -> s.name().equals(name)).map(SkippedServer::source).forEach(sources::add);
        sources.removeIf(source -> !source.providerId().equals(NATIVE) || source.path().isEmpty());
        return sources;
    }

    private static CliException notNative(DiscoveryResult discovery, String name, boolean projectOnly) {
        Optional<SourceMetadata> foreign = Optional.ofNullable(discovery.sources().get(name))
                .or(() -> discovery.skipped().stream().filter(s -> s.name().equals(name)).map(SkippedServer::source)
                        .findFirst());
        if (foreign.isEmpty()) {
            return CliException.usage("No MCP server named \"" + name + "\"" + (projectOnly ? " in the project file" : "")
                    + "." + Suggestions.didYouMean(name, ServerLookup.names(discovery)));
        }
        SourceMetadata source = foreign.get();
        String where = source.path().map(Path::toString).orElse(source.providerName());
        if (source.providerId().equals(NATIVE)) {
            return CliException.usage("MCP server \"" + name + "\" is in " + where + ", not in a project file;"
                    + " leave out --project");
        }
        return CliException.usage("MCP server \"" + name + "\" comes from " + source.providerName() + " (" + where + ")"
                + ", which mcp-host does not edit. To manage it with mcp-host, add it to mcp-host's own config: "
                + addCommand(name, discovery.configs().get(name)));
    }

    /**
     * A ready-to-run {@code mcp-host add} for a foreign server; env and headers left out and secret-looking
     * arguments and URL parameters masked (they may be secrets: the user copies them from the file).
     */
    private static String addCommand(String name, ServerConfig config) {
        if (config instanceof StdioServerConfig stdio) {
            return "mcp-host add " + name + " -- " + Secrets.commandLine(stdio.command(), stdio.args());
        }
        if (config instanceof HttpServerConfig http) {
            return "mcp-host add " + name + " --url " + Secrets.maskUrl(http.url());
        }
        if (config instanceof SseServerConfig sse) {
            return "mcp-host add " + name + " --type sse --url " + Secrets.maskUrl(sse.url());
        }
        return "mcp-host add " + name + " -- COMMAND [ARGS...]";
    }

    /**
     * Tells the user what changed (or prints {@code {"name", "path", "action"}} with {@code --json}),
     * and in the shell applies the change to the running servers at once.
     */
    static void report(CliContext context, String action, String name, Path file) {
        if (context.json()) {
            ObjectNode document = McpJson.object();
            document.put("name", name);
            document.put("action", action);
            document.put("path", file.toString());
            context.printJson(document);
        } else {
            context.out().println(Character.toUpperCase(action.charAt(0)) + action.substring(1) + " MCP server \"" + name
                    + "\" in " + file);
        }
        context.shell().ifPresent(shell -> shell.apply(context, name));
    }

    /**
     * Checks an entry with discovery's rules (SPEC §3), so {@code add} refuses exactly what
     * discovery would skip, with the same messages.
     *
     * @param spec the entry
     * @return the messages, empty when valid
     */
    static List<String> validate(ServerSpec spec) {
        return ConfigValidation.problems(spec);
    }
}
