package mcp.api;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The rules of the sandbox a stdio server runs in: where it may write, what it may not read, and which network it
 * may reach. The shape is VS Code's {@code sandbox} object of {@code mcp.json} ({@code filesystem.allowWrite},
 * {@code filesystem.denyRead}, {@code filesystem.denyWrite}, {@code network.allowedDomains},
 * {@code network.deniedDomains}), with VS Code's meaning: everything is readable except {@code denyRead}, nothing
 * is writable except {@code allowWrite} (minus {@code denyWrite}), and no network is reachable except what
 * {@code allowedDomains} grants. On Linux the stdio transport runs the server under bubblewrap
 * ({@code bwrap}) with these rules; see {@code docs/sandbox.md} for the arguments each rule becomes.
 *
 * <p>Paths are absolute, or relative to the server's working directory; {@code ~} and {@code ~/...} stand for the
 * home directory of the server's environment (discovery expands them with its own home first). A trailing
 * {@code /**} means the directory itself. Any other glob ({@code *}, {@code ?}, {@code [}) cannot be enforced with
 * bind mounts: see {@link #unenforceable()}.
 *
 * <p>Network: an empty {@code allowedDomains} means no network at all (a network namespace of the server's own,
 * with only its own loopback); {@code "*"} (mcp-host's spelling: VS Code's sandbox runtime refuses it) means the
 * whole network. A list of particular domains cannot be enforced by bubblewrap, which isolates the network all or
 * nothing, so such a sandbox is {@link #unenforceable()}, and so is a {@code deniedDomains} beside {@code "*"}.
 *
 * @param filesystem the file system rules
 * @param network the network rules
 * @param bubblewrap the bubblewrap program to run the server with (an absolute path); empty: {@code bwrap} looked
 *     up on the host's {@code PATH} when the server starts. Discovery sets the program that passed its probe; it
 *     is not part of what an entry writes
 */
public record Sandbox(Filesystem filesystem, Network network, Optional<String> bubblewrap) {

    /** The value of {@code allowedDomains} that grants the whole network. */
    public static final String ANY_DOMAIN = "*";

    /** A sandbox with no rule of its own: nothing writable, everything readable, no network. */
    public static final Sandbox DEFAULT = new Sandbox(Filesystem.NONE, Network.NONE, Optional.empty());

    /** Validates. */
    public Sandbox {
        Objects.requireNonNull(filesystem, "filesystem");
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(bubblewrap, "bubblewrap");
    }

    /** A sandbox of these rules, run with {@code bwrap} of the host's {@code PATH}. */
    public Sandbox(Filesystem filesystem, Network network) {
        this(filesystem, network, Optional.empty());
    }

    /**
     * File system rules.
     *
     * @param allowWrite the paths the server may write (and create files in); nothing else is writable
     * @param denyRead the paths the server may not read (a directory then looks empty, a file cannot be opened)
     * @param denyWrite paths inside {@code allowWrite} that stay read-only
     */
    public record Filesystem(List<String> allowWrite, List<String> denyRead, List<String> denyWrite) {

        /** No rule: nothing writable, everything readable. */
        public static final Filesystem NONE = new Filesystem(List.of(), List.of(), List.of());

        /** Copies. */
        public Filesystem {
            allowWrite = List.copyOf(allowWrite);
            denyRead = List.copyOf(denyRead);
            denyWrite = List.copyOf(denyWrite);
        }
    }

    /**
     * Network rules.
     *
     * @param allowedDomains the domains the server may reach: none (the default) for no network, {@code "*"} for
     *     all of it; particular domains cannot be enforced (see {@link Sandbox#unenforceable()})
     * @param deniedDomains domains it may not reach even if allowed
     */
    public record Network(List<String> allowedDomains, List<String> deniedDomains) {

        /** No network. */
        public static final Network NONE = new Network(List.of(), List.of());

        /** The whole network. */
        public static final Network ANY = new Network(List.of(ANY_DOMAIN), List.of());

        /** Copies. */
        public Network {
            allowedDomains = List.copyOf(allowedDomains);
            deniedDomains = List.copyOf(deniedDomains);
        }

        /** @return whether the server gets the host's network ({@code "*"} is among the allowed domains) */
        public boolean any() {
            return allowedDomains.contains(ANY_DOMAIN);
        }
    }

    /**
     * @param program the bubblewrap program, an absolute path
     * @return this sandbox run with that program
     */
    public Sandbox withBubblewrap(String program) {
        return new Sandbox(filesystem, network, Optional.of(Objects.requireNonNull(program, "program")));
    }

    /**
     * @param other more rules
     * @return a sandbox with the rules of both (each list in order, this one's first, without repeats), and this
     *     one's program, else the other's
     */
    public Sandbox with(Sandbox other) {
        Objects.requireNonNull(other, "other");
        return new Sandbox(new Filesystem(union(filesystem.allowWrite, other.filesystem.allowWrite),
                union(filesystem.denyRead, other.filesystem.denyRead),
                union(filesystem.denyWrite, other.filesystem.denyWrite)),
                new Network(union(network.allowedDomains, other.network.allowedDomains),
                        union(network.deniedDomains, other.network.deniedDomains)),
                bubblewrap.or(other::bubblewrap));
    }

    /**
     * What bubblewrap alone cannot enforce of these rules. Such a sandbox is never used: discovery lists its server
     * as inactive with this reason and the stdio transport refuses to start it, because running it with more access
     * than the rules grant would break them, and with less would break the server in ways its rules do not explain.
     *
     * @return the reason, or empty when every rule can be enforced
     */
    public Optional<String> unenforceable() {
        List<String> reasons = new ArrayList<>();
        List<String> domains = network.allowedDomains.stream().filter(d -> !d.equals(ANY_DOMAIN)).toList();
        if (!network.any() && !domains.isEmpty()) {
            reasons.add("network.allowedDomains " + domains + " cannot be enforced: bubblewrap isolates the network"
                    + " all or nothing (allow \"" + ANY_DOMAIN + "\" for the whole network, or none for no network)");
        }
        if (network.any() && !network.deniedDomains.isEmpty()) {
            reasons.add("network.deniedDomains " + network.deniedDomains + " cannot be enforced beside \""
                    + ANY_DOMAIN + "\": bubblewrap cannot filter domains");
        }
        for (String rule : List.of("allowWrite", "denyRead", "denyWrite")) {
            List<String> paths = switch (rule) {
                case "allowWrite" -> filesystem.allowWrite;
                case "denyRead" -> filesystem.denyRead;
                default -> filesystem.denyWrite;
            };
            for (String path : paths) {
                if (path.isBlank()) {
                    reasons.add("filesystem." + rule + " has an empty path");
                } else if (isGlob(path)) {
                    reasons.add("filesystem." + rule + " \"" + path + "\" is a pattern, which bind mounts cannot"
                            + " follow (name the directory, or end it with /**)");
                }
            }
        }
        return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons));
    }

    /**
     * @param path a path of a rule
     * @return the path without a trailing {@code /**} (the directory itself) or trailing slashes ({@code "/"} stays)
     */
    public static String directoryOf(String path) {
        String trimmed = path.endsWith("/**") ? path.substring(0, path.length() - 3) : path;
        while (trimmed.length() > 1 && trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        return trimmed.isEmpty() ? "/" : trimmed;
    }

    private static boolean isGlob(String path) {
        String trimmed = directoryOf(path);
        return trimmed.indexOf('*') >= 0 || trimmed.indexOf('?') >= 0 || trimmed.indexOf('[') >= 0;
    }

    private static List<String> union(List<String> first, List<String> second) {
        LinkedHashSet<String> all = new LinkedHashSet<>(first);
        all.addAll(second);
        return List.copyOf(all);
    }

    @Override
    public String toString() {
        return "Sandbox[allowWrite=" + filesystem.allowWrite + ", denyRead=" + filesystem.denyRead + ", denyWrite="
                + filesystem.denyWrite + ", allowedDomains=" + network.allowedDomains + ", deniedDomains="
                + network.deniedDomains + bubblewrap.map(p -> ", bubblewrap=" + p).orElse("") + "]";
    }
}
