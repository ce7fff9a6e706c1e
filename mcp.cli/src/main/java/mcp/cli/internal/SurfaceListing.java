package mcp.cli.internal;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import mcp.api.ServerConfig;
import mcp.api.internal.Secrets;
import mcp.manager.McpClient;
import mcp.manager.internal.AgentText;
import tools.jackson.databind.node.ObjectNode;

/**
 * Asks the servers of a command for what they offer beside tools (resources, prompts, completions): waits for
 * each one's connection, passes over those that do not declare the capability, sends the request to the others
 * at once and waits for every answer within a bound. A server that fails is an error of its own; the others
 * carry on. {@code resources}, {@code read}, {@code prompts}, {@code prompt} and {@code complete} (and their shell
 * lines) all go through here.
 */
final class SurfaceListing {

    private SurfaceListing() {
    }

    /**
     * What the servers answered.
     *
     * @param answers by server, in discovery order
     * @param errors the servers that failed to connect or to answer, with the reason (secrets masked)
     * @param skipped the servers that declare no such capability, with the reason
     * @param <T> the answer's type
     */
    record Answers<T>(Map<String, T> answers, Map<String, String> errors, Map<String, String> skipped) {
        /** Copies. */
        Answers {
            answers = Collections.unmodifiableMap(new LinkedHashMap<>(answers));
            errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
            skipped = Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
        }
    }

    /**
     * The connected clients of the servers that declare a capability.
     *
     * @param loaded the command's servers
     * @param onlyServer only this server, or {@code null} for every server discovery found
     * @param capability {@code resources}, {@code prompts} or {@code completions}
     * @return the clients by server, and the servers that failed or were passed over
     */
    static Answers<McpClient> clients(Loaded loaded, String onlyServer, String capability) {
        Map<String, CompletableFuture<McpClient>> pending = new LinkedHashMap<>();
        Map<String, String> errors = new LinkedHashMap<>();
        Map<String, String> failedAtLoad = loaded.errors();
        for (String name : servers(loaded, onlyServer)) {
            if (failedAtLoad.containsKey(name)) {
                errors.put(name, failedAtLoad.get(name));
            } else {
                pending.put(name, loaded.manager().waitForConnection(name));
            }
        }
        Map<String, McpClient> clients = new LinkedHashMap<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        long start = System.nanoTime();
        pending.forEach((name, connection) -> outcome(connection, start, bound(loaded, name), name).then(client -> {
            if (client.initializeResult().capabilities().path(capability).isObject()) {
                clients.put(name, client);
            } else {
                skipped.put(name, "no " + capability + " capability");
            }
        }, error -> errors.put(name, error)));
        return new Answers<>(clients, errors, skipped);
    }

    /**
     * Sends one request to every server that declares a capability, all at once, and waits for the answers.
     *
     * @param loaded the command's servers
     * @param onlyServer only this server, or {@code null} for every server discovery found
     * @param capability the capability the request needs
     * @param request the request to send to one server's client
     * @param <T> the answer's type
     * @return the answers by server, and the servers that failed or were passed over
     */
    static <T> Answers<T> ask(Loaded loaded, String onlyServer, String capability,
            Function<McpClient, CompletableFuture<T>> request) {
        Answers<McpClient> clients = clients(loaded, onlyServer, capability);
        Map<String, CompletableFuture<T>> pending = new LinkedHashMap<>();
        Map<String, String> errors = new LinkedHashMap<>(clients.errors());
        clients.answers().forEach((name, client) -> {
            try {
                pending.put(name, request.apply(client));
            } catch (RuntimeException e) {
                pending.put(name, CompletableFuture.failedFuture(e));
            }
        });
        Map<String, T> answers = new LinkedHashMap<>();
        long start = System.nanoTime();
        pending.forEach((name, answer) -> outcome(answer, start, bound(loaded, name), name).then(
                value -> answers.put(name, value), error -> errors.put(name, error)));
        return new Answers<>(answers, errors, clients.skipped());
    }

    /**
     * The whole of a listing command ({@code resources}, {@code prompts}): connects the servers, asks every one with
     * the capability, prints the document or the listing and each failed server's error, and what discovery had to
     * say (pending approvals, problems).
     *
     * @param context the command's context
     * @param onlyServer the server of {@code --server}, or {@code null} for all
     * @param capability the capability the listing needs
     * @param request the listing of one server
     * @param json the {@code --json} document of the answers
     * @param print the listing for people, on stdout (and anything more on stderr)
     * @param <T> a server's listing
     * @return the exit code: 0, per-server errors are reported, not fatal
     */
    static <T> int list(CliContext context, String onlyServer, String capability,
            Function<McpClient, CompletableFuture<T>> request, Function<Answers<T>, ObjectNode> json,
            BiConsumer<CliContext, Answers<T>> print) {
        try (Loaded loaded = context.load(onlyServer, context.hostBuilder())) {
            Answers<T> listed = ask(loaded, onlyServer, capability, request);
            if (context.json()) {
                ObjectNode document = json.apply(listed);
                ObjectNode errors = document.has("errors") ? (ObjectNode) document.get("errors")
                        : document.putObject("errors");
                listed.errors().forEach(errors::put);
                ObjectNode skipped = document.putObject("skipped");
                listed.skipped().forEach(skipped::put);
                context.printJson(document);
            } else {
                print.accept(context, listed);
                listed.errors().forEach((name, error) -> context.err().println("error: " + name + ": " + error));
            }
            context.printNotStarted(loaded.discovery(), onlyServer);
            context.printProblems(loaded.discovery(), onlyServer);
        }
        return ExitCodes.OK;
    }

    /**
     * Waits for one request of a command within its bound.
     *
     * @param loaded the command's servers
     * @param server the server asked
     * @param request what it was asked
     * @param <T> the answer's type
     * @return the answer
     * @throws CliException (exit 1) with the server's name and the reason when it failed or did not answer
     */
    static <T> T await(Loaded loaded, String server, CompletableFuture<T> request) {
        Outcome<T> outcome = outcome(request, System.nanoTime(), bound(loaded, server), server);
        if (outcome.error() != null) {
            // The client's messages mostly name the server already.
            throw new CliException(ExitCodes.FAILURE, outcome.error().contains("\"" + server + "\"") ? outcome.error()
                    : server + ": " + outcome.error());
        }
        return outcome.value();
    }

    /** @return the servers to ask: every server discovery found (those not started are not in it), or the one named */
    private static List<String> servers(Loaded loaded, String onlyServer) {
        if (onlyServer != null) {
            return List.of(onlyServer);
        }
        return List.copyOf(loaded.discovery().configs().keySet());
    }

    /**
     * The longest wait for a server: a connect still in flight (its timeout), then the request, whose own
     * timeout fires first; a listing may take several pages. A backstop, not the request's timeout.
     */
    private static Duration bound(Loaded loaded, String server) {
        Duration timeout = Optional.ofNullable(loaded.discovery().configs().get(server)).map(ServerConfig::timeout)
                .orElse(ServerConfig.DEFAULT_TIMEOUT);
        return timeout.multipliedBy(4).plusSeconds(5);
    }

    /**
     * What waiting for a future gave.
     *
     * @param value its value, or {@code null} when it failed
     * @param error why it has none, for people (secrets masked), or {@code null}
     */
    private record Outcome<T>(T value, String error) {
        void then(Consumer<T> onValue, Consumer<String> onError) {
            if (error == null) {
                onValue.accept(value);
            } else {
                onError.accept(error);
            }
        }
    }

    /**
     * Waits for a future until {@code bound} after {@code start} (servers asked at once are waited for one after
     * another, each within its bound from the start); one that is late is cancelled.
     */
    private static <T> Outcome<T> outcome(CompletableFuture<T> future, long start, Duration bound, String what) {
        try {
            long left = Math.max(1, bound.toNanos() - (System.nanoTime() - start));
            return new Outcome<>(future.get(left, TimeUnit.NANOSECONDS), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new CliException(ExitCodes.FAILURE, what + ": interrupted");
        } catch (TimeoutException e) {
            future.cancel(true);
            return new Outcome<>(null, "no answer after " + bound.toMillis() + " ms");
        } catch (ExecutionException | CancellationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            String message = cause.getMessage() == null ? cause.toString() : cause.getMessage();
            return new Outcome<>(null, Secrets.maskText(message));
        }
    }

    /**
     * @param text a server's text (a name, a title, a description)
     * @param max the most characters to show
     * @return it without terminal control sequences or invisible characters, cut to {@code max}
     */
    static String clean(String text, int max) {
        return AgentText.clean(text, max).text();
    }
}
