package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import mcp.api.ServerSpec;
import mcp.api.spi.CapabilitySource.Inactive;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;

/** What one {@code discover} call has found so far: servers in order, inactive entries, and problems. */
final class Findings {

    private final List<ServerSpec> servers;
    private final List<Inactive> inactive;
    private final List<Problem> problems;
    /** The owning tool's consent: the reason an entry would not be started, or empty to keep it. */
    private final Function<ServerSpec, Optional<String>> consent;

    Findings() {
        this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), spec -> Optional.empty());
    }

    private Findings(List<ServerSpec> servers, List<Inactive> inactive, List<Problem> problems,
            Function<ServerSpec, Optional<String>> consent) {
        this.servers = servers;
        this.inactive = inactive;
        this.problems = problems;
        this.consent = consent;
    }

    /**
     * @param consent the owning tool's decision for each entry added through the view: a reason makes
     *     the entry inactive
     * @return a view that adds to these findings, each server through {@code consent} first
     */
    Findings withConsent(Function<ServerSpec, Optional<String>> consent) {
        return new Findings(servers, inactive, problems, consent);
    }

    void add(ServerSpec server) {
        Optional<String> declined = consent.apply(server);
        if (declined.isPresent()) {
            inactive.add(new Inactive(server, declined.get()));
        } else {
            servers.add(server);
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
        return new Result(servers, problems, inactive);
    }
}
