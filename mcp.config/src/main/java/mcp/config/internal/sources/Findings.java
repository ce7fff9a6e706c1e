package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import mcp.api.ConsultedFile;
import mcp.api.OwnerState;
import mcp.api.ServerSpec;
import mcp.api.ToolPolicy;
import mcp.api.ToolRule;
import mcp.api.spi.CapabilitySource.Inactive;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;

/**
 * What one {@code discover} call has found so far: servers in order, inactive entries, problems, and the files it
 * consulted. Each call has its own (two discoveries at once share nothing), and its views share its lists.
 */
final class Findings {

    private final List<ServerSpec> servers;
    private final List<Inactive> inactive;
    private final List<Problem> problems;
    /** Every file read or looked for, by path, in the order first consulted; what was found there merged. */
    private final Map<Path, ConsultedFile> consulted;
    /** The owning tool's decision about an entry: one that does not start it makes the entry inactive. */
    private final Function<ServerSpec, Optional<OwnerState>> consent;
    /** Why the owning tool would never start an entry of this kind, or empty. */
    private final Function<ServerSpec, Optional<String>> unstartable;
    /** The owning tool's per-tool rules for an entry, kept in the entry after its own. */
    private final Function<ServerSpec, List<ToolRule>> toolRules;
    /** What the owning tool changes in an entry where it stands (a helper it does not run in an untrusted folder). */
    private final java.util.function.UnaryOperator<ServerSpec> adjust;

    Findings() {
        this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new LinkedHashMap<>(), spec -> Optional.empty(),
                spec -> Optional.empty(), spec -> List.of(), spec -> spec);
    }

    private Findings(List<ServerSpec> servers, List<Inactive> inactive, List<Problem> problems,
            Map<Path, ConsultedFile> consulted, Function<ServerSpec, Optional<OwnerState>> consent,
            Function<ServerSpec, Optional<String>> unstartable, Function<ServerSpec, List<ToolRule>> toolRules,
            java.util.function.UnaryOperator<ServerSpec> adjust) {
        this.servers = servers;
        this.inactive = inactive;
        this.problems = problems;
        this.consulted = consulted;
        this.consent = consent;
        this.unstartable = unstartable;
        this.toolRules = toolRules;
        this.adjust = adjust;
    }

    /**
     * @param consent the owning tool's decision for each entry added through the view, kept in the entry;
     *     a decision that does not start the server makes the entry inactive
     * @return a view that adds to these findings, each server through {@code consent} first
     */
    Findings withConsent(Function<ServerSpec, Optional<OwnerState>> consent) {
        return new Findings(servers, inactive, problems, consulted, consent, unstartable, toolRules, adjust);
    }

    /**
     * @param rules the owning tool's per-tool rules for each entry added through the view, from its files
     *     beside the entry's (Claude Code's settings), kept after the rules the entry itself holds
     * @return a view that adds to these findings, each server with those rules
     */
    Findings withToolRules(Function<ServerSpec, List<ToolRule>> rules) {
        return new Findings(servers, inactive, problems, consulted, consent, unstartable, rules, adjust);
    }

    /**
     * @param adjustment what the owning tool changes in each entry added through the view, given where the entry
     *     stands (applied before the other views' functions, after those of this view's parent)
     * @return a view that adds to these findings, each server adjusted first
     */
    Findings withAdjustment(java.util.function.UnaryOperator<ServerSpec> adjustment) {
        java.util.function.UnaryOperator<ServerSpec> before = adjust;
        return new Findings(servers, inactive, problems, consulted, consent, unstartable, toolRules,
                spec -> adjustment.apply(before.apply(spec)));
    }

    /** @return whether a problem of this file is reported already (a file two readers read is reported once) */
    boolean hasProblem(Path file) {
        return problems.stream().anyMatch(problem -> problem.file().equals(file));
    }

    /**
     * @param unstartable why the owning tool itself would never start an entry of this kind (not a decision
     *     of its user's): such an entry is inactive with the reason and no owner state
     * @return a view that adds to these findings, each server through {@code unstartable} first
     */
    Findings withUnstartable(Function<ServerSpec, Optional<String>> unstartable) {
        return new Findings(servers, inactive, problems, consulted, consent, unstartable, toolRules, adjust);
    }

    /**
     * @return findings of their own for a read whose problems the caller decides about (reports once, or not at
     *     all), whose consulted files still count as this call's
     */
    Findings detached() {
        return new Findings(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), consulted, consent, unstartable,
                toolRules, adjust);
    }

    /** Notes a file read or looked for; a second report of the same file keeps the more telling state. */
    void consulted(ConsultedFile file) {
        consulted.merge(file.path(), file, ConsultedFile::merge);
    }

    void add(ServerSpec written) {
        ServerSpec added = adjust.apply(written);
        List<ToolRule> rules = toolRules.apply(added);
        ServerSpec server = rules.isEmpty() ? added : added.toBuilder().toolPolicy(new ToolPolicy(
                java.util.stream.Stream.concat(added.toolPolicy().rules().stream(), rules.stream()).toList())).build();
        Optional<String> never = unstartable.apply(server);
        if (never.isPresent()) {
            inactive.add(new Inactive(server, never.get()));
            return;
        }
        Optional<OwnerState> decision = consent.apply(server);
        if (decision.isEmpty()) {
            servers.add(server);
        } else if (decision.get().startsServer()) {
            servers.add(server.withOwner(decision.get()));
        } else {
            inactive.add(new Inactive(server.withOwner(decision.get()), decision.get().reason()));
        }
    }

    void problem(Problem problem) {
        problems.add(problem);
    }

    void problem(Path file, String location, String server, String message) {
        problems.add(new Problem(file, location, server, message));
    }

    int serverCount() {
        return servers.size() + inactive.size();
    }

    Result result() {
        return new Result(servers, problems, inactive, List.copyOf(consulted.values()));
    }
}
