package mcp.manager;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * The fields of a form-mode elicitation's {@code requestedSchema}, the restricted JSON Schema of the MCP
 * specification (a flat object of primitive properties), with the parsing and checking of what a person types:
 * one place for every front end that asks (the shell's terminal form, an embedder's dialog) and for the check
 * of an accepted answer before it goes to the server.
 *
 * <p>Understood: {@code string} (with {@code minLength}, {@code maxLength}, {@code format} {@code email},
 * {@code uri}, {@code date}, {@code date-time}), {@code string} with {@code enum} (and the legacy
 * {@code enumNames}) or {@code oneOf}/{@code anyOf} of {@code const} and {@code title}, {@code number} and
 * {@code integer} (with {@code minimum}, {@code maximum}), {@code boolean}, and {@code array} of such choices
 * (multi-select, with {@code minItems}, {@code maxItems}). Each may have {@code title}, {@code description} and
 * {@code default}.
 *
 * @param fields the fields, in the schema's order
 */
public record ElicitationForm(List<Field> fields) {

    /** Copies. */
    public ElicitationForm {
        fields = List.copyOf(fields);
    }

    /** A field's kind. */
    public enum Type {
        /** Free text, possibly of a format. */
        STRING,
        /** One of a list of choices. */
        CHOICE,
        /** Several of a list of choices. */
        MULTI_CHOICE,
        /** A number. */
        NUMBER,
        /** A whole number. */
        INTEGER,
        /** Yes or no. */
        BOOLEAN
    }

    /**
     * One choice of a {@link Type#CHOICE} or {@link Type#MULTI_CHOICE} field.
     *
     * @param value what goes to the server
     * @param title what the user sees (the value when the schema gives no title)
     */
    public record Choice(String value, String title) {
    }

    /**
     * One property of the schema.
     *
     * @param name the property name
     * @param label its {@code title}, else its name
     * @param description its {@code description}, or empty
     * @param type its kind
     * @param required whether the schema's {@code required} names it
     * @param defaultValue its {@code default}
     * @param choices the choices of a choice field, else empty
     * @param format a string's {@code format}, or empty
     * @param schema the property's own schema, for the bounds
     */
    public record Field(String name, String label, String description, Type type, boolean required,
            Optional<JsonNode> defaultValue, List<Choice> choices, String format, JsonNode schema) {

        /** Copies. */
        public Field {
            Objects.requireNonNull(name, "name");
            choices = List.copyOf(choices);
        }

        /**
         * Reads what a person typed.
         *
         * @param text the typed line; blank means the default, or nothing for an optional field
         * @return the value for the content, or empty to leave the field out
         * @throws IllegalArgumentException with a message for the person when it does not fit
         */
        public Optional<JsonNode> parse(String text) {
            String typed = text == null ? "" : text.strip();
            if (typed.isEmpty()) {
                if (defaultValue.isPresent()) {
                    return defaultValue;
                }
                if (required) {
                    throw new IllegalArgumentException(label + " is required");
                }
                return Optional.empty();
            }
            JsonNode value = switch (type) {
                case STRING -> McpJson.mapper().getNodeFactory().stringNode(typed);
                case BOOLEAN -> switch (typed.toLowerCase(Locale.ROOT)) {
                    case "y", "yes", "true" -> McpJson.mapper().getNodeFactory().booleanNode(true);
                    case "n", "no", "false" -> McpJson.mapper().getNodeFactory().booleanNode(false);
                    default -> throw new IllegalArgumentException("answer y or n");
                };
                case INTEGER -> {
                    try {
                        yield integral(Long.parseLong(typed));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("a whole number, please");
                    }
                }
                case NUMBER -> {
                    try {
                        double number = Double.parseDouble(typed);
                        if (!Double.isFinite(number)) {
                            throw new NumberFormatException();
                        }
                        yield number == Math.rint(number) && Math.abs(number) < 1e15
                                ? integral((long) number)
                                : McpJson.mapper().getNodeFactory().numberNode(number);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("a number, please");
                    }
                }
                case CHOICE -> McpJson.mapper().getNodeFactory().stringNode(choice(typed));
                case MULTI_CHOICE -> {
                    ArrayNode values = McpJson.mapper().createArrayNode();
                    for (String part : typed.split(",")) {
                        if (!part.isBlank()) {
                            values.add(choice(part.strip()));
                        }
                    }
                    yield values;
                }
            };
            problem(value).ifPresent(problem -> {
                throw new IllegalArgumentException(problem);
            });
            return Optional.of(value);
        }

        /** An int node when it fits, as Jackson reads a small number, so that answers compare as parsed JSON. */
        private static JsonNode integral(long value) {
            return value == (int) value ? McpJson.mapper().getNodeFactory().numberNode((int) value)
                    : McpJson.mapper().getNodeFactory().numberNode(value);
        }

        /** A choice by its number in the list (from 1), its value or its title. */
        private String choice(String typed) {
            try {
                int index = Integer.parseInt(typed);
                if (index >= 1 && index <= choices.size()) {
                    return choices.get(index - 1).value();
                }
            } catch (NumberFormatException e) {
                // not a number: a value or a title
            }
            for (Choice choice : choices) {
                if (choice.value().equals(typed) || choice.title().equalsIgnoreCase(typed)) {
                    return choice.value();
                }
            }
            throw new IllegalArgumentException("choose 1 to " + choices.size() + " or one of "
                    + choices.stream().map(Choice::value).toList());
        }

        /**
         * @param value a value for this field
         * @return what is wrong with it, for a person, or empty when it fits
         */
        public Optional<String> problem(JsonNode value) {
            switch (type) {
                case STRING -> {
                    if (!value.isString()) {
                        return Optional.of("text expected");
                    }
                    String text = value.asString();
                    int length = text.codePointCount(0, text.length());
                    if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
                        return Optional.of("at least " + schema.get("minLength").asInt() + " characters");
                    }
                    if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
                        return Optional.of("at most " + schema.get("maxLength").asInt() + " characters");
                    }
                    return formatProblem(text);
                }
                case CHOICE -> {
                    return value.isString() && choices.stream().anyMatch(c -> c.value().equals(value.asString()))
                            ? Optional.empty() : Optional.of("not one of the choices");
                }
                case MULTI_CHOICE -> {
                    if (!value.isArray()) {
                        return Optional.of("a list of choices expected");
                    }
                    Set<String> seen = new HashSet<>();
                    for (JsonNode item : value) {
                        if (!item.isString() || choices.stream().noneMatch(c -> c.value().equals(item.asString()))
                                || !seen.add(item.asString())) {
                            return Optional.of("not a list of distinct choices");
                        }
                    }
                    if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
                        return Optional.of("choose at least " + schema.get("minItems").asInt());
                    }
                    if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
                        return Optional.of("choose at most " + schema.get("maxItems").asInt());
                    }
                    return Optional.empty();
                }
                case BOOLEAN -> {
                    return value.isBoolean() ? Optional.empty() : Optional.of("yes or no expected");
                }
                default -> {
                    if (!value.isNumber() || (type == Type.INTEGER && !value.isIntegralNumber())) {
                        return Optional.of(type == Type.INTEGER ? "a whole number expected" : "a number expected");
                    }
                    if (schema.has("minimum") && value.asDouble() < schema.get("minimum").asDouble()) {
                        return Optional.of("at least " + schema.get("minimum"));
                    }
                    if (schema.has("maximum") && value.asDouble() > schema.get("maximum").asDouble()) {
                        return Optional.of("at most " + schema.get("maximum"));
                    }
                    return Optional.empty();
                }
            }
        }

        private Optional<String> formatProblem(String text) {
            switch (format) {
                case "email" -> {
                    int at = text.indexOf('@');
                    return at > 0 && at == text.lastIndexOf('@') && at < text.length() - 1
                            && text.chars().noneMatch(Character::isWhitespace)
                            ? Optional.empty() : Optional.of("an email address, please");
                }
                case "uri" -> {
                    try {
                        return new URI(text).isAbsolute() ? Optional.empty() : Optional.of("an absolute URI, please");
                    } catch (URISyntaxException e) {
                        return Optional.of("an absolute URI, please");
                    }
                }
                case "date" -> {
                    try {
                        LocalDate.parse(text);
                        return Optional.empty();
                    } catch (DateTimeParseException e) {
                        return Optional.of("a date like 2026-07-28, please");
                    }
                }
                case "date-time" -> {
                    try {
                        OffsetDateTime.parse(text);
                        return Optional.empty();
                    } catch (DateTimeParseException e) {
                        return Optional.of("a date and time like 2026-07-28T09:30:00Z, please");
                    }
                }
                default -> {
                    return Optional.empty();
                }
            }
        }
    }

    /**
     * Reads a {@code requestedSchema}.
     *
     * @param requestedSchema the request's schema
     * @return its fields
     * @throws IllegalArgumentException when it is not a flat object schema of the kinds above, saying which
     *     property is not
     */
    public static ElicitationForm of(JsonNode requestedSchema) {
        if (requestedSchema == null || !requestedSchema.isObject()) {
            throw new IllegalArgumentException("the requestedSchema is not an object");
        }
        Set<String> required = new HashSet<>();
        requestedSchema.path("required").forEach(name -> required.add(name.asString("")));
        List<Field> fields = new ArrayList<>();
        JsonNode properties = requestedSchema.path("properties");
        for (Map.Entry<String, JsonNode> property : properties.properties()) {
            fields.add(field(property.getKey(), property.getValue(), required.contains(property.getKey())));
        }
        return new ElicitationForm(fields);
    }

    private static Field field(String name, JsonNode schema, boolean required) {
        String type = schema.path("type").asString("");
        List<Choice> choices = choices(schema);
        Type kind;
        if (type.equals("array")) {
            choices = choices(schema.path("items"));
            if (choices.isEmpty()) {
                throw new IllegalArgumentException("property \"" + name + "\" is an array without choices");
            }
            kind = Type.MULTI_CHOICE;
        } else if (type.equals("string")) {
            kind = choices.isEmpty() ? Type.STRING : Type.CHOICE;
        } else if (type.equals("number")) {
            kind = Type.NUMBER;
        } else if (type.equals("integer")) {
            kind = Type.INTEGER;
        } else if (type.equals("boolean")) {
            kind = Type.BOOLEAN;
        } else {
            throw new IllegalArgumentException("property \"" + name + "\" has the type \"" + type
                    + "\", which a form cannot ask for");
        }
        JsonNode defaultValue = schema.get("default");
        return new Field(name, schema.path("title").asString(name), schema.path("description").asString(""), kind,
                required, defaultValue == null || defaultValue.isNull() ? Optional.empty()
                        : Optional.of(defaultValue.deepCopy()), choices, schema.path("format").asString(""), schema);
    }

    /** The choices of {@code enum} (titled by {@code enumNames}) or of {@code oneOf}/{@code anyOf} consts. */
    private static List<Choice> choices(JsonNode schema) {
        List<Choice> choices = new ArrayList<>();
        JsonNode values = schema.path("enum");
        JsonNode names = schema.path("enumNames");
        for (int i = 0; i < values.size(); i++) {
            String value = values.get(i).asString("");
            choices.add(new Choice(value, names.has(i) ? names.get(i).asString(value) : value));
        }
        for (String key : List.of("oneOf", "anyOf")) {
            for (JsonNode option : schema.path(key)) {
                if (option.has("const")) {
                    String value = option.get("const").asString("");
                    choices.add(new Choice(value, option.path("title").asString(value)));
                }
            }
        }
        return choices;
    }

    /**
     * Checks an answer: every required field present and every value fitting its field; properties the schema
     * does not name are a problem too (the server did not ask for them).
     *
     * @param content the answer
     * @return what is wrong, one line a problem (field names, never the values); empty when it fits
     */
    public List<String> problems(JsonNode content) {
        List<String> problems = new ArrayList<>();
        if (content == null || !content.isObject()) {
            return List.of("the content is not an object");
        }
        Set<String> names = new HashSet<>();
        for (Field field : fields) {
            names.add(field.name());
            JsonNode value = content.get(field.name());
            if (value == null || value.isNull()) {
                if (field.required()) {
                    problems.add(field.name() + ": required");
                }
                continue;
            }
            field.problem(value).ifPresent(problem -> problems.add(field.name() + ": " + problem));
        }
        for (String name : content.propertyNames()) {
            if (!names.contains(name)) {
                problems.add(name + ": not asked for");
            }
        }
        return problems;
    }
}
