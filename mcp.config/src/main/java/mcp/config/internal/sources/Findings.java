package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import mcp.api.ServerSpec;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;

/** What one {@code discover} call has found so far: servers in order, and problems. */
final class Findings {

    private final List<ServerSpec> servers = new ArrayList<>();
    private final List<Problem> problems = new ArrayList<>();

    void add(ServerSpec server) {
        servers.add(server);
    }

    void problem(Problem problem) {
        problems.add(problem);
    }

    void problem(Path file, String location, String server, String message) {
        problems.add(new Problem(file, location, server, message));
    }

    int serverCount() {
        return servers.size();
    }

    Result result() {
        return new Result(servers, problems);
    }
}
