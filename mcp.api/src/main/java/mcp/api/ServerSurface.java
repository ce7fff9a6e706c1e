package mcp.api;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a server offers beside its tools: its resources, resource templates, prompts and skills (the entries of the
 * skills extension, never their files), each in the server's order. A server without the {@code resources} or
 * {@code prompts} capability or the skills extension has empty lists for it.
 *
 * @param resources its resources
 * @param templates its resource templates
 * @param prompts its prompts
 * @param skills its skills' entries
 */
public record ServerSurface(List<ResourceDefinition> resources, List<ResourceTemplate> templates,
        List<PromptDefinition> prompts, List<SkillEntry> skills) {

    /** Nothing beside tools. */
    public static final ServerSurface EMPTY = new ServerSurface(List.of(), List.of(), List.of(), List.of());

    /** Copies. */
    public ServerSurface {
        resources = List.copyOf(resources);
        templates = List.copyOf(templates);
        prompts = List.copyOf(prompts);
        skills = List.copyOf(skills);
    }

    /** @return whether it offers no resource, template, prompt or skill */
    public boolean isEmpty() {
        return resources.isEmpty() && templates.isEmpty() && prompts.isEmpty() && skills.isEmpty();
    }

    /** @return whether it offers resources or resource templates */
    public boolean hasResources() {
        return !resources.isEmpty() || !templates.isEmpty();
    }

    /**
     * @return {@code {"resources":[...],"resourceTemplates":[...],"prompts":[...],"skills":[...]}}, as MCP writes
     *     each item (a skill entry exactly as its server sent it)
     */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object();
        ArrayNode resourceArray = json.putArray("resources");
        resources.forEach(resource -> resourceArray.add(resource.toJson()));
        ArrayNode templateArray = json.putArray("resourceTemplates");
        templates.forEach(template -> templateArray.add(template.toJson()));
        ArrayNode promptArray = json.putArray("prompts");
        prompts.forEach(prompt -> promptArray.add(prompt.toJson()));
        ArrayNode skillArray = json.putArray("skills");
        skills.forEach(skill -> skillArray.add(skill.raw()));
        return json;
    }

    /**
     * Reads what {@link #toJson()} wrote.
     *
     * @param server the name of the server it is of (skill entries keep it)
     * @param json the object
     * @return the surface
     * @throws McpException when a member is not an array or an item is invalid
     */
    public static ServerSurface fromJson(String server, JsonNode json) {
        if (json == null || !json.isObject()) {
            throw new McpException("Invalid server surface: not an object");
        }
        return new ServerSurface(items(json, "resources", ResourceDefinition::fromJson),
                items(json, "resourceTemplates", ResourceTemplate::fromJson),
                items(json, "prompts", PromptDefinition::fromJson),
                items(json, "skills", skill -> SkillEntry.fromJson(server, skill)));
    }

    private static <T> List<T> items(JsonNode json, String member, Function<JsonNode, T> parse) {
        JsonNode array = json.get(member);
        if (array == null) {
            return List.of();
        }
        if (!array.isArray()) {
            throw new McpException("Invalid server surface: \"" + member + "\" is not an array");
        }
        List<T> items = new ArrayList<>(array.size());
        array.forEach(item -> items.add(parse.apply(item)));
        return items;
    }
}
