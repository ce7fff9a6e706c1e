package mcp.api;

import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a {@code completion/complete} completes an argument of: a prompt, or a resource template.
 */
public sealed interface CompletionReference {

    /** @return the MCP JSON form ({@code ref}) */
    ObjectNode toJson();

    /**
     * @param name the prompt's name
     * @return a reference to that prompt ({@code ref/prompt})
     */
    static CompletionReference prompt(String name) {
        return new Prompt(name);
    }

    /**
     * @param uriTemplate the template, as listed in {@code resources/templates/list}
     * @return a reference to that template ({@code ref/resource})
     */
    static CompletionReference resourceTemplate(String uriTemplate) {
        return new Template(uriTemplate);
    }

    /** @param name the prompt's name */
    record Prompt(String name) implements CompletionReference {
        /** Validates. */
        public Prompt {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public ObjectNode toJson() {
            return McpJson.object().put("type", "ref/prompt").put("name", name);
        }
    }

    /** @param uriTemplate the resource template */
    record Template(String uriTemplate) implements CompletionReference {
        /** Validates. */
        public Template {
            Objects.requireNonNull(uriTemplate, "uriTemplate");
        }

        @Override
        public ObjectNode toJson() {
            return McpJson.object().put("type", "ref/resource").put("uri", uriTemplate);
        }
    }
}
