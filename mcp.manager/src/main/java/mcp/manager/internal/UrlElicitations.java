package mcp.manager.internal;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import mcp.api.McpException;
import mcp.api.McpProtocolException;
import mcp.api.spi.ElicitationUi;
import mcp.manager.ElicitationHandler;
import mcp.manager.ServerRequestHandler;
import mcp.protocol.ErrorCodes;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A server that refuses a call until the user has finished on one or more pages: the URL elicitation required
 * error ({@link ErrorCodes#URL_ELICITATION_REQUIRED}, -32042, since 2025-11-25), whose {@code data.elicitations} are URL-mode
 * requests. Where the client has a UI that presents URLs, each page is put to the user as any URL request is
 * (consent first, then the page opened), and once the user has finished on all of them the call is sent once
 * more. Otherwise the call fails with what happened and the page's host, never the URL: it may carry a one-time
 * token, and a call's failure reaches the model.
 */
final class UrlElicitations {

    /** The most pages one refusal may put to the user; a server that names more is not asked for them. */
    static final int MAX_PAGES = 4;

    private UrlElicitations() {
    }

    /**
     * @param serverName the server, for messages
     * @param what the call, for messages ({@code tools/call search})
     * @param handler the client's elicitation handler, or {@code null}
     * @param call sends the call (again)
     * @return the call's result: the first answer, or after the user's pages the second
     */
    static CompletableFuture<JsonNode> retrying(String serverName, String what, ServerRequestHandler handler,
            Supplier<CompletableFuture<JsonNode>> call) {
        CompletableFuture<JsonNode> first = call.get();
        AtomicReference<CompletableFuture<JsonNode>> inFlight = new AtomicReference<>(first);
        CompletableFuture<JsonNode> result = first.exceptionallyCompose(error -> {
            Throwable cause = ClientSession.unwrap(error);
            if (!(cause instanceof McpProtocolException refusal) || refusal.code() != ErrorCodes.URL_ELICITATION_REQUIRED) {
                return CompletableFuture.failedFuture(cause);
            }
            List<ObjectNode> pages;
            try {
                pages = pages(serverName, what, refusal);
            } catch (McpException e) {
                return CompletableFuture.failedFuture(e);
            }
            String hosts = hosts(pages);
            if (!(handler instanceof ElicitationHandler modal) || !modal.modes().contains(ElicitationUi.Mode.URL)) {
                return CompletableFuture.failedFuture(new McpException("MCP server \"" + serverName + "\" needs you "
                        + "to finish on a page (" + hosts + ") before it runs " + what + ", and this front end cannot "
                        + "show pages: run it in mcp-host shell, or give the host an ElicitationUi", refusal));
            }
            // The UI may ask a person, and so block: never on the thread that read the response.
            return CompletableFuture.runAsync(() -> askAll(serverName, what, modal, pages, hosts), ClientThreads.WORKERS)
                    .thenCompose(done -> {
                        CompletableFuture<JsonNode> again = call.get();
                        inFlight.set(again);
                        return again.exceptionallyCompose(second -> {
                            Throwable secondCause = ClientSession.unwrap(second);
                            if (secondCause instanceof McpProtocolException still
                                    && still.code() == ErrorCodes.URL_ELICITATION_REQUIRED) {
                                return CompletableFuture.failedFuture(new McpException("MCP server \"" + serverName
                                        + "\" still refuses " + what + " after you finished on its page (" + hosts
                                        + "); try the call again once the page says you are done", still));
                            }
                            return CompletableFuture.failedFuture(secondCause);
                        });
                    });
        });
        result.whenComplete((value, error) -> {
            if (error instanceof CancellationException) {
                inFlight.get().cancel(false);
            }
        });
        return result;
    }

    /** Puts each page to the user; fails unless the user finished on all of them. */
    private static void askAll(String serverName, String what, ElicitationHandler handler, List<ObjectNode> pages,
            String hosts) {
        for (ObjectNode page : pages) {
            String action;
            try {
                action = handler.beforeRetry(page).path("action").asString("decline");
            } catch (Exception e) {
                throw new CompletionException(new McpException("MCP server \"" + serverName + "\" needs you to finish"
                        + " on a page (" + hosts + ") before it runs " + what + "; asking failed: " + e.getMessage(), e));
            }
            if (!action.equals("accept")) {
                throw new CompletionException(new McpException("MCP server \"" + serverName + "\" needs you to finish"
                        + " on a page (" + hosts + ") before it runs " + what + "; you "
                        + (action.equals("cancel") ? "cancelled" : "declined")));
            }
        }
    }

    /** The refusal's URL-mode requests, each with {@code mode: url}; fails when it names none. */
    private static List<ObjectNode> pages(String serverName, String what, McpProtocolException refusal) {
        List<ObjectNode> pages = new ArrayList<>();
        JsonNode listed = refusal.data().map(data -> data.path("elicitations")).orElse(null);
        if (listed != null && listed.isArray()) {
            for (JsonNode entry : listed) {
                if (entry.isObject() && entry.path("url").isString()) {
                    ObjectNode page = ((ObjectNode) entry).deepCopy();
                    page.put("mode", "url");
                    pages.add(page);
                }
            }
        }
        if (pages.isEmpty()) {
            throw new McpException("MCP server \"" + serverName + "\" refused " + what + " until you finish on a page,"
                    + " but named no page (its error -32042 has no data.elicitations with a url)", refusal);
        }
        if (pages.size() > MAX_PAGES) {
            throw new McpException("MCP server \"" + serverName + "\" refused " + what + " until you finish on "
                    + pages.size() + " pages; mcp-host puts at most " + MAX_PAGES + " to you at once", refusal);
        }
        return pages;
    }

    /** The pages' hosts, which the user may see in a message; the rest of a URL stays out. */
    private static String hosts(List<ObjectNode> pages) {
        List<String> hosts = new ArrayList<>();
        for (ObjectNode page : pages) {
            String host;
            try {
                host = URI.create(page.path("url").asString("")).getHost();
            } catch (IllegalArgumentException e) {
                host = null;
            }
            String shown = host == null ? "an unreadable URL" : host.toLowerCase(Locale.ROOT);
            if (!hosts.contains(shown)) {
                hosts.add(shown);
            }
        }
        return String.join(", ", hosts);
    }
}
