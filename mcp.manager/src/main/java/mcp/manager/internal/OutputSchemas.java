package mcp.manager.internal;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * Checks a tool's {@code structuredContent} against its {@code outputSchema}, as MCP asks of a client, with
 * a JSON Schema 2020-12 validator (the default dialect when a schema names none). A schema never makes the
 * validator read anything but itself: no {@code $ref} to a network or file location is followed, whatever it
 * names (a server must not make its client fetch from where it points), so such a reference fails the check.
 */
public final class OutputSchemas {

    /** At most this many of the validator's messages go into one failure. */
    private static final int MAX_REASONS = 5;

    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder.schemaLoader(loader -> loader.fetchRemoteResources(false).block(iri -> true)));

    private final Schema schema;

    private OutputSchemas(Schema schema) {
        this.schema = schema;
    }

    /**
     * @param outputSchema a tool's output schema, as the server listed it
     * @return its validator
     * @throws RuntimeException when the schema cannot be used (the validator's own exception)
     */
    public static OutputSchemas of(JsonNode outputSchema) {
        return new OutputSchemas(REGISTRY.getSchema(SchemaLocation.of("urn:mcp-host:output-schema"), outputSchema));
    }

    /**
     * @param structuredContent a result's structured content
     * @return why it does not match the schema, or empty when it does
     */
    public Optional<String> problem(JsonNode structuredContent) {
        List<Error> errors;
        try {
            errors = schema.validate(structuredContent);
        } catch (RuntimeException e) {
            return Optional.of("the outputSchema could not be applied: " + e.getMessage());
        }
        if (errors.isEmpty()) {
            return Optional.empty();
        }
        String reasons = errors.stream().limit(MAX_REASONS).map(Error::toString).collect(Collectors.joining("; "));
        return Optional.of(errors.size() > MAX_REASONS ? reasons + "; and " + (errors.size() - MAX_REASONS) + " more"
                : reasons);
    }
}
