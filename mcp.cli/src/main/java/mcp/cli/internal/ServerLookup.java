package mcp.cli.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;

/** Finds a server by name in a discovery, or says precisely why it cannot be used. */
final class ServerLookup {

    private ServerLookup() {
    }

    /**
     * @param discovery what discovery found
     * @param name a server name
     * @return the winning config of that name and where it came from
     * @throws CliException (usage) when the name is unknown, or only skipped entries have it
     */
    static Map.Entry<ServerConfig, SourceMetadata> find(DiscoveryResult discovery, String name) {
        ServerConfig config = discovery.configs().get(name);
        if (config != null) {
            return Map.entry(config, discovery.sources().get(name));
        }
        Optional<SkippedServer> skipped = discovery.skipped().stream().filter(s -> s.name().equals(name)).findFirst();
        if (skipped.isPresent()) {
            SkippedServer entry = skipped.get();
            throw CliException.usage("MCP server \"" + name + "\" is not used: " + entry.detail() + " ("
                    + describe(entry.source()) + ")");
        }
        throw CliException.usage("No MCP server named \"" + name + "\"." + Suggestions.didYouMean(name, names(discovery)));
    }

    /** @return every server name discovery saw, used or not */
    static List<String> names(DiscoveryResult discovery) {
        List<String> names = new ArrayList<>(discovery.configs().keySet());
        discovery.skipped().forEach(s -> names.add(s.name()));
        return names;
    }

    /** @return e.g. {@code Claude Code, /home/me/.claude.json} */
    static String describe(SourceMetadata source) {
        return source.providerName() + source.path().map(p -> ", " + p).orElse("");
    }
}
