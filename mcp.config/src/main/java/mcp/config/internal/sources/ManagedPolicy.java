package mcp.config.internal.sources;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ConsultedFile;
import mcp.api.OwnerState;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource;
import tools.jackson.databind.node.ObjectNode;

/**
 * mcp-host's own managed policy: one machine-wide file an administrator writes
 * ({@code /etc/mcp-host/managed-mcp.json} on Linux, {@code /Library/Application Support/mcp-host/} on
 * macOS, {@code C:\ProgramData\mcp-host\} on Windows; {@code Discovery.Builder.managedPolicy} moves it),
 * binding every server of every source:
 * <ul>
 *   <li>{@code allowedMcpServers} / {@code deniedMcpServers}: Claude Code's lists, read the same way
 *       ({@link ServerRules}): deny always wins, an absent allow list allows all, an empty one none;</li>
 *   <li>{@code mcpServers}: servers the administrator provides, in the native format (source
 *       {@code managed}); they skip the allow list unless they use {@code ${VAR}}, not the deny list;</li>
 *   <li>{@code exclusive: true}: only those servers run.</li>
 * </ul>
 * A file that cannot be read blocks every server (fail closed), with a problem that names it.
 *
 * @param file the policy file
 * @param root its content, when it exists and can be read (read once, for the rules and the servers)
 * @param broken whether it exists but cannot be read
 * @param exclusive whether only its own servers may run
 * @param rules its lists
 */
public record ManagedPolicy(Path file, Optional<ObjectNode> root, boolean broken, boolean exclusive,
        ServerRules rules) {

    /** The id of the source of the policy's own servers. */
    public static final String SOURCE_ID = "managed";

    /**
     * @param file the policy file, usually {@link #defaultFile()}
     * @param environment what its entries and the servers expand from
     * @return the policy, with the problems of its file
     */
    public static Read read(Path file, Map<String, String> environment) {
        Findings findings = new Findings();
        ConfigFile config = new ConfigFile(file.toAbsolutePath().normalize(), Level.USER, file.getParent(), Format.JSON);
        // A dangling or looping link in the policy's place is a policy that cannot be read, not no policy.
        boolean present = Files.exists(config.path()) || Files.isSymbolicLink(config.path());
        Optional<ObjectNode> root = present ? ConfigReader.read(config, findings) : Optional.empty();
        if (!present) {
            findings.consulted(new ConsultedFile(config.path(), ConsultedFile.State.MISSING));
        }
        Optional<ClaudeConsent.Lists> place = root.map(node -> new ClaudeConsent.Lists(config.path().toString(),
                config.path(), node));
        ServerRules rules = new ServerRules("mcp-host's managed policy",
                place.flatMap(p -> ServerRules.rules(p, ServerRules.ALLOWED, findings)),
                place.flatMap(p -> ServerRules.rules(p, ServerRules.DENIED, findings)).orElse(List.of()), environment);
        boolean exclusive = root.map(node -> node.path("exclusive").asBoolean(false)).orElse(false);
        CapabilitySource.Result found = findings.result();
        return new Read(new ManagedPolicy(config.path(), root, present && root.isEmpty(), exclusive, rules),
                found.problems(), found.consultedFiles());
    }

    /**
     * @param policy the policy
     * @param problems the problems of its file
     * @param consultedFiles the policy file, found or not
     */
    public record Read(ManagedPolicy policy, List<CapabilitySource.Problem> problems,
            List<ConsultedFile> consultedFiles) {
    }

    /** @return this platform's policy file */
    public static Path defaultFile() {
        return Platform.current().machinePath("/etc/mcp-host/managed-mcp.json",
                "/Library/Application Support/mcp-host/managed-mcp.json", "C:\\ProgramData\\mcp-host\\managed-mcp.json");
    }

    /** @return the source of the policy's own servers ({@code mcpServers} of the file), read as the native format */
    public CapabilitySource source() {
        return new ManagedSource(file, root);
    }

    /**
     * @param server an entry of any source, after expansion and the filters
     * @return that the policy keeps it from running, or empty
     */
    public Optional<OwnerState> decide(ServerSpec server) {
        boolean own = server.source().providerId().equals(SOURCE_ID);
        if (broken) {
            return blocked("mcp-host's managed policy " + file + " cannot be read, so no server runs until it is fixed");
        }
        if (exclusive && !own) {
            return blocked("mcp-host's managed policy (" + file + ") lets only its own servers run (exclusive)");
        }
        return rules.check(server, !own || ServerRules.usesVariables(server));
    }

    private static Optional<OwnerState> blocked(String reason) {
        return Optional.of(new OwnerState(OwnerState.Kind.BLOCKED, reason));
    }

    /** The policy's own servers: its {@code mcpServers}, in mcp-host's format (priority above every other source). */
    private static final class ManagedSource extends FileSource {
        private final Path file;
        private final Optional<ObjectNode> root;

        ManagedSource(Path file, Optional<ObjectNode> root) {
            super(SOURCE_ID, "mcp-host managed policy", 1000);
            this.file = file;
            this.root = root;
        }

        /** The file as the policy read it: a problem of the file as a whole is the policy's, reported once. */
        @Override
        void collect(Context context, SearchPath search, Findings findings) {
            ConfigFile config = userFile(file, search);
            root.ifPresent(node -> guarded(config, "", findings,
                    () -> readServers(config, node, "", "mcpServers", search, findings)));
        }

        @Override
        void readServer(ServerEntry entry, SpecBuilder spec) {
            CommonShape.read(entry, spec);
            spec.valueReferences = true;
        }
    }
}
