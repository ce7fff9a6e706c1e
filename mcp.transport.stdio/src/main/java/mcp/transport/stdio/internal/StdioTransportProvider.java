package mcp.transport.stdio.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import mcp.api.McpException;
import mcp.api.StdioServerConfig;
import mcp.api.internal.Secrets;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.transport.stdio.StdioTransports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code stdio} transport provider: starts the server process and wraps it in a
 * {@link StdioTransport}. Stateless and thread-safe; public with a public no-argument constructor
 * because {@link java.util.ServiceLoader} instantiates it.
 */
public final class StdioTransportProvider implements TransportProvider {

    private static final Logger LOG = LoggerFactory.getLogger(StdioTransportProvider.class);

    /** The JDK reports exec failures as "error=2, No such file or directory". */
    private static final Pattern ERRNO_PREFIX = Pattern.compile("^error=\\d+,\\s*");

    /** Creates the provider. */
    public StdioTransportProvider() {
    }

    @Override
    public String id() {
        return StdioTransports.PROVIDER_ID;
    }

    @Override
    public Transport open(TransportRequest request) {
        Objects.requireNonNull(request, "request");
        String name = request.serverName();
        if (!(request.config() instanceof StdioServerConfig config)) {
            throw new McpException("The stdio transport cannot open MCP server \"" + name + "\": its config has type \""
                    + request.config().type() + "\" (" + request.config().getClass().getSimpleName()
                    + "), and only StdioServerConfig is supported; use the transport provider for that type");
        }
        if (config.command().isBlank()) {
            throw new McpException(failure(name, config.command(), "the command is empty"));
        }
        Path directory = directory(request, config);
        List<String> command = new ArrayList<>(1 + config.args().size());
        command.add(executable(config));
        command.addAll(config.args());
        // environment() starts as a copy of the host's environment (or the part the config lets through);
        // the config's entries win.
        Map<String, String> environment = new HashMap<>(System.getenv());
        config.inheritedEnv().ifPresent(names -> environment.keySet().retainAll(names));
        environment.putAll(config.env());
        // In a sandbox, bubblewrap runs the command: never the command without it (Bubblewrap refuses instead).
        Bubblewrap.Launch sandboxed = null;
        if (config.sandbox().isPresent()) {
            sandboxed = Bubblewrap.prepare(name, config.sandbox().get(), command.get(0), config.args(), directory,
                    environment, config.env());
            command = sandboxed.command();
        }
        List<String> programArgs = command.subList(1, command.size());

        // Never a shell: the arguments reach the program exactly as configured. In a session of its own
        // when possible (Sessions), through setsid, which execs the program in place (same pid).
        Optional<Path> program = Sessions.setsid().isPresent() ? locate(command.get(0), directory) : Optional.empty();
        List<String> launched = command;
        if (program.isPresent()) {
            launched = new ArrayList<>(command.size() + 1);
            launched.add(Sessions.setsid().get());
            launched.add(program.get().toString());
            launched.addAll(programArgs);
        }
        ProcessBuilder builder = new ProcessBuilder(launched).directory(directory.toFile());
        builder.environment().clear();
        builder.environment().putAll(environment);
        Process process;
        try {
            process = builder.start();
        } catch (IOException | RuntimeException e) {
            if (sandboxed != null) {
                sandboxed.cleanUp();
            }
            String started = sandboxed != null ? command.get(0) : config.command();
            throw new McpException(failure(name, config.command(), startFailureReason(e, started)), e);
        }
        // Env values may be secrets: names only; secret-looking arguments are masked (the process got them as is).
        LOG.debug("Started MCP server \"{}\" (pid {}{}{}): {} in {}, env {}", name, process.pid(),
                program.isPresent() ? ", own session" : "", sandboxed != null ? ", sandboxed" : "",
                Secrets.commandLine(command.get(0), programArgs), directory, config.env().keySet());
        Runnable afterEnd = sandboxed == null ? () -> { } : sandboxed::cleanUp;
        try {
            return new StdioTransport(request, process, program.isPresent(), afterEnd);
        } catch (RuntimeException | Error e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            afterEnd.run();
            throw e;
        }
    }

    /** The config's {@code cwd} resolved against the request's working directory, which must exist. */
    private static Path directory(TransportRequest request, StdioServerConfig config) {
        Path directory;
        try {
            Path base = request.workingDirectory();
            directory = config.cwd().map(base::resolve).orElse(base).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new McpException(failure(request.serverName(), config.command(),
                    "invalid working directory \"" + config.cwd().orElse("") + "\": " + e.getReason()), e);
        }
        if (!Files.isDirectory(directory)) {
            throw new McpException(failure(request.serverName(), config.command(),
                    "working directory " + directory + " does not exist or is not a directory"));
        }
        return directory;
    }

    /**
     * The program to run. The JDK looks a bare name up on the host's {@code PATH}; when the config
     * sets its own {@code PATH}, the server would expect that one (as {@code env PATH=... cmd} does),
     * so look there first.
     *
     * @param config the server's config
     * @return the command, or the file it names on the config's {@code PATH}
     */
    static String executable(StdioServerConfig config) {
        String command = config.command();
        String path = config.env().get("PATH");
        if (path == null || command.indexOf('/') >= 0 || command.indexOf(File.separatorChar) >= 0) {
            return command;
        }
        for (String entry : path.split(Pattern.quote(File.pathSeparator))) {
            if (entry.isEmpty()) {
                continue;
            }
            try {
                Path candidate = Path.of(entry, command);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            } catch (InvalidPathException e) {
                // a malformed PATH entry cannot hold the command
            }
        }
        return command;
    }

    /**
     * The file the JDK would run for {@code command}: a name with a slash resolved against the working
     * directory, a bare name looked up on the host's {@code PATH} (as the JDK does). Empty when there
     * is no such executable file: the server is then started directly, and the JDK's error for it
     * is the one reported, as without sessions.
     */
    static Optional<Path> locate(String command, Path directory) {
        try {
            if (command.indexOf('/') >= 0) {
                Path file = directory.resolve(command);
                return Files.isRegularFile(file) && Files.isExecutable(file) ? Optional.of(file) : Optional.empty();
            }
            String path = System.getenv("PATH");
            if (path == null) {
                return Optional.empty();
            }
            for (String entry : path.split(Pattern.quote(File.pathSeparator))) {
                Path file = Path.of(entry.isEmpty() ? "." : entry, command);
                if (Files.isRegularFile(file) && Files.isExecutable(file)) {
                    return Optional.of(file.isAbsolute() ? file : directory.resolve(file));
                }
            }
        } catch (InvalidPathException e) {
            // a name no file can have: start directly and let the JDK report it
        }
        return Optional.empty();
    }

    private static String startFailureReason(Exception e, String command) {
        Throwable detailed = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause() : e;
        String reason = ERRNO_PREFIX.matcher(String.valueOf(detailed.getMessage())).replaceFirst("");
        if (reason.contains("No such file or directory") && command.indexOf('/') < 0) {
            reason += " (is it installed and on the PATH?)";
        }
        return reason;
    }

    private static String failure(String name, String command, String reason) {
        return "Failed to start MCP server \"" + name + "\": " + Secrets.maskText(command) + ": " + reason;
    }
}
