package mcp.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a {@code subscriptions/listen} stream of the stateless revision carries ({@code notifications} of the request,
 * and of its acknowledgement): the list changes asked for, and the resources whose updates are wanted.
 *
 * @param toolsListChanged {@code notifications/tools/list_changed}
 * @param promptsListChanged {@code notifications/prompts/list_changed}
 * @param resourcesListChanged {@code notifications/resources/list_changed}
 * @param resourceSubscriptions the URIs whose {@code notifications/resources/updated} are wanted
 */
public record SubscriptionFilter(boolean toolsListChanged, boolean promptsListChanged, boolean resourcesListChanged,
        List<String> resourceSubscriptions) {

    /** The member of a listen request's params (and of its acknowledgement's) that holds the filter. */
    public static final String KEY = "notifications";
    /** The field of the tool list changes. */
    public static final String TOOLS = "toolsListChanged";
    /** The field of the prompt list changes. */
    public static final String PROMPTS = "promptsListChanged";
    /** The field of the resource list changes. */
    public static final String RESOURCES = "resourcesListChanged";
    /** The field of the resource updates. */
    public static final String RESOURCE_SUBSCRIPTIONS = "resourceSubscriptions";

    /** Nothing at all. */
    public static final SubscriptionFilter NOTHING = new SubscriptionFilter(false, false, false, List.of());

    /** Validates and copies. */
    public SubscriptionFilter {
        resourceSubscriptions = List.copyOf(resourceSubscriptions);
    }

    /**
     * Reads a filter; fields of the wrong type count as absent, and URIs that are not strings are left out.
     *
     * @param filter the {@code notifications} member, or {@code null}
     * @return the filter
     */
    public static SubscriptionFilter read(JsonNode filter) {
        if (filter == null || !filter.isObject()) {
            return NOTHING;
        }
        List<String> uris = new ArrayList<>();
        for (JsonNode uri : filter.path(RESOURCE_SUBSCRIPTIONS)) {
            if (uri.isString()) {
                uris.add(uri.asString());
            }
        }
        return new SubscriptionFilter(filter.path(TOOLS).asBoolean(false), filter.path(PROMPTS).asBoolean(false),
                filter.path(RESOURCES).asBoolean(false), uris);
    }

    /**
     * What of this filter a server honours.
     *
     * @param tools whether it tells tool list changes
     * @param prompts whether it tells prompt list changes
     * @param resources whether it tells resource list changes
     * @param subscriptions whether it tells resource updates
     * @return the filter narrowed to those
     */
    public SubscriptionFilter narrowedTo(boolean tools, boolean prompts, boolean resources, boolean subscriptions) {
        return new SubscriptionFilter(toolsListChanged && tools, promptsListChanged && prompts,
                resourcesListChanged && resources, subscriptions ? resourceSubscriptions : List.of());
    }

    /**
     * @param method a notification method
     * @param params its params, or {@code null}
     * @return whether a stream with this filter carries it
     */
    public boolean carries(String method, JsonNode params) {
        Objects.requireNonNull(method, "method");
        return switch (method) {
            case "notifications/tools/list_changed" -> toolsListChanged;
            case "notifications/prompts/list_changed" -> promptsListChanged;
            case "notifications/resources/list_changed" -> resourcesListChanged;
            case "notifications/resources/updated" -> params != null && params.path("uri").isString()
                    && resourceSubscriptions.contains(params.path("uri").asString());
            default -> false;
        };
    }

    /** @return the filter as MCP writes it; only the fields that are set */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object();
        if (toolsListChanged) {
            json.put(TOOLS, true);
        }
        if (promptsListChanged) {
            json.put(PROMPTS, true);
        }
        if (resourcesListChanged) {
            json.put(RESOURCES, true);
        }
        if (!resourceSubscriptions.isEmpty()) {
            resourceSubscriptions.forEach(json.putArray(RESOURCE_SUBSCRIPTIONS)::add);
        }
        return json;
    }
}
