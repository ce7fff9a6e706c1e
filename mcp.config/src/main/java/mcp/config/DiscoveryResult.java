package mcp.config;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ApprovalState;
import mcp.api.ConsultedFile;
import mcp.api.OwnerState;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;

/**
 * What one {@link Discovery#discover()} found.
 *
 * <p>Every entry that a capability source returned ends up in exactly one place: as a winner in
 * {@link #configs()}, or in {@link #skipped()} with the reason. Problems come on top: a source's
 * file problems, failed sources or filters, unset variables (warnings), and one error per invalid
 * server (which is also in {@code skipped}).
 *
 * @param configs the winning config of every server name, validated and with {@code ${VAR}} expanded,
 *     in merge order (priority, then provider order, then file order); unmodifiable, iteration order kept
 * @param sources where each winner came from, same keys and order as {@code configs}
 * @param exaApiKeys the API keys of the filtered-out Exa servers, in discovery order, without duplicates;
 *     secrets: never log them
 * @param problems warnings and errors, in discovery order, each naming its file, location and server where known
 * @param skipped every entry not used, with why, in discovery order
 * @param owners what the owning tool decided about a winner whose start depended on it (approved, trusted
 *     folder), by name; winners that needed no one's consent are not in it
 * @param approvals mcp-host's approval of each winner from a project-level file (approved, or started for a
 *     trusted checkout), by name; the others need none and are not in it
 * @param definitions the {@linkplain mcp.consent.ServerDefinition#hash() definition hash} of every winner,
 *     by name: the key of its pinned tool definitions
 * @param consultedFiles every file this discovery read or looked for, found or not, once each, in the order first
 *     consulted, with what was found there: the config files of every source that names its files (every built-in
 *     one does; a plugin says so in its {@link mcp.api.spi.CapabilitySource.Result}), the owning tools' settings
 *     and policies, mcp-host's managed policy, and its approvals when a project server was met. What a host
 *     watches to reload when configs change; none for a {@link #hardFailure}
 */
public record DiscoveryResult(Map<String, ServerConfig> configs, Map<String, SourceMetadata> sources,
        List<String> exaApiKeys, List<DiscoveryProblem> problems, List<SkippedServer> skipped,
        Map<String, OwnerState> owners, Map<String, ApprovalState> approvals, Map<String, String> definitions,
        List<ConsultedFile> consultedFiles) {

    /** The file a hard failure names, as the described system does (SPEC §3, failure classes). */
    private static final Path HARD_FAILURE_FILE = Path.of(".mcp.json");

    /** Copies; the maps keep their iteration order. */
    public DiscoveryResult {
        configs = Collections.unmodifiableMap(new LinkedHashMap<>(configs));
        sources = Collections.unmodifiableMap(new LinkedHashMap<>(sources));
        exaApiKeys = List.copyOf(exaApiKeys);
        problems = List.copyOf(problems);
        skipped = List.copyOf(skipped);
        owners = Collections.unmodifiableMap(new LinkedHashMap<>(owners));
        approvals = Collections.unmodifiableMap(new LinkedHashMap<>(approvals));
        definitions = Collections.unmodifiableMap(new LinkedHashMap<>(definitions));
        consultedFiles = List.copyOf(consultedFiles);
    }

    /** A result that names no consulted file. */
    public DiscoveryResult(Map<String, ServerConfig> configs, Map<String, SourceMetadata> sources,
            List<String> exaApiKeys, List<DiscoveryProblem> problems, List<SkippedServer> skipped,
            Map<String, OwnerState> owners, Map<String, ApprovalState> approvals, Map<String, String> definitions) {
        this(configs, sources, exaApiKeys, problems, skipped, owners, approvals, definitions, List.of());
    }

    /** A result without approvals and definition hashes. */
    public DiscoveryResult(Map<String, ServerConfig> configs, Map<String, SourceMetadata> sources,
            List<String> exaApiKeys, List<DiscoveryProblem> problems, List<SkippedServer> skipped,
            Map<String, OwnerState> owners) {
        this(configs, sources, exaApiKeys, problems, skipped, owners, Map.of(), Map.of());
    }

    /** A result without owners' decisions. */
    public DiscoveryResult(Map<String, ServerConfig> configs, Map<String, SourceMetadata> sources,
            List<String> exaApiKeys, List<DiscoveryProblem> problems, List<SkippedServer> skipped) {
        this(configs, sources, exaApiKeys, problems, skipped, Map.of());
    }

    /**
     * The result of a discovery that failed as a whole (a broken or duplicated provider, or an
     * unexpected failure): no configs, and one {@link DiscoveryProblem.Severity#ERROR} problem on the
     * file {@code .mcp.json} with this message, the synthetic error SPEC §3 prescribes.
     *
     * @param message what failed, for people
     * @return the result
     */
    public static DiscoveryResult hardFailure(String message) {
        String text = message == null || message.isEmpty() ? "Discovery failed" : message;
        return new DiscoveryResult(Map.of(), Map.of(), List.of(), List.of(new DiscoveryProblem(
                DiscoveryProblem.Severity.ERROR, Optional.of(HARD_FAILURE_FILE), "", "", text)), List.of());
    }

    /**
     * Whether this is a {@link #hardFailure(String)}: nothing found or skipped, and the single
     * synthetic error. An ordinary discovery never looks like that, because its only errors are
     * invalid servers, and each of those is also in {@link #skipped()}.
     *
     * @return whether discovery failed as a whole
     */
    public boolean hardFailed() {
        if (!configs.isEmpty() || !skipped.isEmpty() || problems.size() != 1) {
            return false;
        }
        DiscoveryProblem only = problems.get(0);
        return only.severity() == DiscoveryProblem.Severity.ERROR
                && only.file().equals(Optional.of(HARD_FAILURE_FILE))
                && only.location().isEmpty() && only.server().isEmpty();
    }
}
