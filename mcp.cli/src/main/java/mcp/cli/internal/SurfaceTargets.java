package mcp.cli.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Predicate;
import mcp.api.PromptDefinition;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceTemplate;
import mcp.api.internal.Secrets;
import mcp.manager.McpClient;

/**
 * Which server a prompt, a resource or a resource template named on the command line belongs to: the one
 * {@code --server} names, else the one that lists it; more than one is an error that names them all.
 */
final class SurfaceTargets {

    private SurfaceTargets() {
    }

    /**
     * A server's client and what to ask it for.
     *
     * @param server the server
     * @param client its client
     * @param name the prompt's name on that server, or the URI or URI template
     */
    record Target(String server, McpClient client, String name) {
    }

    /**
     * A server's resources and templates. A server that lists resources but fails to list templates (some do not
     * implement {@code resources/templates/list}) still has its resources.
     *
     * @param resources the resources
     * @param templates the templates (empty when they could not be listed)
     * @param templatesError why the templates could not be listed, or empty
     */
    record ResourceListing(List<ResourceDefinition> resources, List<ResourceTemplate> templates,
            Optional<String> templatesError) {

        /** Copies. */
        ResourceListing {
            resources = List.copyOf(resources);
            templates = List.copyOf(templates);
        }

        /** Lists a server's resources and templates at once. */
        static CompletableFuture<ResourceListing> of(McpClient client) {
            CompletableFuture<List<ResourceTemplate>> templates = client.listResourceTemplates();
            return client.listResources().thenCombine(templates.handle((list, error) -> error),
                    (resources, error) -> error == null
                            ? new ResourceListing(resources, templates.join(), Optional.empty())
                            : new ResourceListing(resources, List.of(), Optional.of(reason(error))));
        }

        private static String reason(Throwable error) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            return Secrets.maskText("resources/templates/list: "
                    + (cause.getMessage() == null ? cause.toString() : cause.getMessage()));
        }
    }

    /**
     * Finds the server of a prompt: {@code --server}, else the server of {@code SERVER:PROMPT} when one is called
     * so, else the one server that lists the prompt.
     *
     * @param loaded the command's servers
     * @param name {@code SERVER:PROMPT} or {@code PROMPT}
     * @param onlyServer the server of {@code --server}, or {@code null}
     * @param capability the capability the request to send needs ({@code prompts}, {@code completions})
     * @return the server, its client and the prompt's name there
     * @throws CliException (usage) when no server or several list it; (exit 1) when the server failed
     */
    static Target prompt(Loaded loaded, String name, String onlyServer, String capability) {
        if (onlyServer != null) {
            String prompt = name.startsWith(onlyServer + ":") ? name.substring(onlyServer.length() + 1) : name;
            return new Target(onlyServer, client(loaded, onlyServer, capability), prompt);
        }
        int colon = name.indexOf(':');
        if (colon > 0 && loaded.discovery().configs().containsKey(name.substring(0, colon))) {
            String server = name.substring(0, colon);
            return new Target(server, client(loaded, server, capability), name.substring(colon + 1));
        }
        SurfaceListing.Answers<List<PromptDefinition>> listed =
                SurfaceListing.ask(loaded, null, "prompts", McpClient::listPrompts);
        List<String> candidates = new ArrayList<>();
        List<String> names = new ArrayList<>();
        listed.answers().forEach((server, prompts) -> prompts.forEach(prompt -> {
            names.add(prompt.name());
            if (prompt.name().equals(name)) {
                candidates.add(server);
            }
        }));
        if (candidates.size() == 1) {
            return new Target(candidates.get(0), client(loaded, candidates.get(0), capability), name);
        }
        if (candidates.size() > 1) {
            throw CliException.usage("Several servers have a prompt \"" + name + "\": "
                    + String.join(", ", candidates.stream().map(server -> server + ":" + name).toList())
                    + ". Name one as SERVER:PROMPT or with --server.");
        }
        // Close to the prompt's own name, shown as SERVER:PROMPT.
        List<String> close = Suggestions.closeTo(name, names);
        List<String> suggestions = listed.answers().entrySet().stream().flatMap(e -> e.getValue().stream()
                .filter(prompt -> close.contains(prompt.name())).map(prompt -> e.getKey() + ":" + prompt.name()))
                .toList();
        throw CliException.usage("No server has a prompt \"" + name + "\"."
                + (suggestions.isEmpty() ? "" : " Did you mean: " + String.join(", ", suggestions) + "?")
                + failures(listed.errors()));
    }

    /**
     * Finds the server of a resource or a template: {@code --server}, else the one that lists it.
     *
     * @param loaded the command's servers
     * @param uri a resource's URI ({@code read}), or a URI template ({@code complete --resource})
     * @param onlyServer the server of {@code --server}, or {@code null}
     * @param capability the capability the request to send needs ({@code resources}, {@code completions})
     * @param template whether {@code uri} is a template: the servers that list it as one, else those that list it as
     *     a resource; otherwise the servers that list it as a resource, else those with a template that matches it
     * @return the server, its client and the URI
     * @throws CliException (usage) when no server or several have it; (exit 1) when the server failed
     */
    static Target resource(Loaded loaded, String uri, String onlyServer, String capability, boolean template) {
        if (onlyServer != null) {
            return new Target(onlyServer, client(loaded, onlyServer, capability), uri);
        }
        SurfaceListing.Answers<ResourceListing> listed =
                SurfaceListing.ask(loaded, null, "resources", ResourceListing::of);
        Map<String, ResourceListing> listings = listed.answers();
        Predicate<ResourceListing> listsTemplate = listing -> listing.templates().stream()
                .anyMatch(t -> t.uriTemplate().equals(uri));
        Predicate<ResourceListing> listsResource = listing -> listing.resources().stream()
                .anyMatch(r -> r.uri().equals(uri));
        Predicate<ResourceListing> templateMatches = listing -> listing.templates().stream()
                .anyMatch(t -> t.matches(uri));
        List<String> candidates = template ? serversWhere(listings, listsTemplate) : serversWhere(listings, listsResource);
        if (candidates.isEmpty()) {
            candidates = template ? serversWhere(listings, listsResource) : serversWhere(listings, templateMatches);
        }
        String what = template ? "resource template" : "resource";
        if (candidates.size() == 1) {
            return new Target(candidates.get(0), client(loaded, candidates.get(0), capability), uri);
        }
        if (candidates.size() > 1) {
            throw CliException.usage("Several servers have the " + what + " " + uri + ": "
                    + String.join(", ", candidates) + ". Name one with --server.");
        }
        throw CliException.usage("No server lists the " + what + " " + uri
                + (template ? "" : " or has a template that matches it")
                + (listings.isEmpty() ? " (no server offers resources)" : "") + "." + failures(listed.errors()));
    }

    private static List<String> serversWhere(Map<String, ResourceListing> listings, Predicate<ResourceListing> test) {
        return listings.entrySet().stream().filter(e -> test.test(e.getValue())).map(Map.Entry::getKey).toList();
    }

    /** @return the servers that could not be asked, one per line, since the answer may be on one of them */
    private static String failures(Map<String, String> errors) {
        StringBuilder text = new StringBuilder();
        errors.forEach((server, error) -> text.append(System.lineSeparator()).append("  (server \"").append(server)
                .append("\" failed: ").append(error).append(')'));
        return text.toString();
    }

    /**
     * @return the client of a server that declares the capability
     * @throws CliException (usage) when it declares none; (exit 1) when it failed to connect
     */
    private static McpClient client(Loaded loaded, String server, String capability) {
        SurfaceListing.Answers<McpClient> clients = SurfaceListing.clients(loaded, server, capability);
        if (clients.errors().containsKey(server)) {
            throw new CliException(ExitCodes.FAILURE, server + ": " + clients.errors().get(server));
        }
        if (clients.skipped().containsKey(server)) {
            throw CliException.usage("MCP server \"" + server + "\" offers no " + capability + " (it declares no \""
                    + capability + "\" capability)");
        }
        return clients.answers().get(server);
    }
}
