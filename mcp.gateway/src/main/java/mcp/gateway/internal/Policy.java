package mcp.gateway.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.server.Caller;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonPointer;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;

/**
 * Who sees and may call what of a gateway, decided on the caller's claims: a list of rules, each with what it applies
 * to ({@code match}) and what it allows and denies, and the rate limits. Immutable; one is read from a file
 * ({@link #parse}: JSON, or YAML for a file named {@code .yaml} or {@code .yml}) and replaced whole when the file
 * changes.
 *
 * <p>Semantics: a remote caller (one an authenticator named) sees nothing but what a rule that matches it allows, and
 * nothing that a rule that matches it denies (deny wins). The machine's own user ({@link Caller#LOCAL}: stdio, or HTTP
 * with the gateway's own token) sees everything, unless a rule says {@code "local": true}: then it is held to the
 * rules that say so, as a remote caller is. A rule's {@code match} holds when every condition it names holds; an empty
 * {@code match} matches every remote caller.
 *
 * <p>What a rule allows or denies: {@code servers} (globs of server names: everything of them), {@code tools} and
 * {@code prompts} (globs of {@code server/name}), {@code resources} (globs of URIs, which also decide the resource
 * templates whose URI template they match). In a name glob {@code *} is any run of characters and {@code ?} one; in a
 * URI glob {@code *} stops at {@code /} and {@code **} does not. The gateway's own tools belong to the server
 * {@value #GATEWAY_SERVER}.
 *
 * @param rules the rules, in the file's order
 * @param limits the rate limits of every caller a rule gives none of its own
 * @param maxTracked the most rate-limit buckets held at once
 * @param localRules whether a rule speaks of {@link Caller#LOCAL}
 */
public record Policy(List<Rule> rules, Limits limits, int maxTracked, boolean localRules) {

    /** The name under which the gateway's own tools are allowed and denied. */
    public static final String GATEWAY_SERVER = "mcp-host";

    /** The default of {@code rateLimits.maxTracked}. */
    public static final int DEFAULT_MAX_TRACKED = 10_000;

    /** What everyone may see and do when no policy is given: everything, without a limit. */
    public static final Policy OPEN = new Policy(List.of(), Limits.NONE, DEFAULT_MAX_TRACKED, false);

    /** Copies. */
    public Policy {
        rules = List.copyOf(rules);
        Objects.requireNonNull(limits, "limits");
    }

    /**
     * @return whether this is {@link #OPEN}, the absence of a policy: nothing to check. A file with no rule is not
     *     open: it denies every remote caller everything.
     */
    public boolean open() {
        return this == OPEN;
    }

    /**
     * @param caller who calls
     * @return what it may see and call, and its limits
     */
    public Access accessFor(Caller caller) {
        boolean local = caller.local();
        if (local && !localRules) {
            return new Access(null, List.of(), limits);
        }
        List<Grant> allows = new ArrayList<>();
        List<Grant> denies = new ArrayList<>();
        Limits own = null;
        for (Rule rule : rules) {
            if (rule.matches(caller, local)) {
                rule.allow().ifPresent(allows::add);
                rule.deny().ifPresent(denies::add);
                if (own == null && rule.limits().isPresent()) {
                    own = rule.limits().get();
                }
            }
        }
        return new Access(allows, denies, own == null ? limits : own);
    }

    /**
     * What one caller may see and call.
     *
     * @param allows the grants of the rules that match it; {@code null}: everything
     * @param denies the denials of the rules that match it
     * @param limits its rate limits
     */
    public record Access(List<Grant> allows, List<Grant> denies, Limits limits) {

        /** Everything, without limits. */
        public static final Access ALL = new Access(null, List.of(), Limits.NONE);

        /**
         * @param server the tool's server (the manager's name for it; {@value #GATEWAY_SERVER} for the gateway's own)
         * @param tool the tool's own name
         * @return whether the caller sees it and may call it
         */
        public boolean tool(String server, String tool) {
            return decide(grant -> grant.tool(server, tool));
        }

        /**
         * @param server the prompt's server
         * @param prompt the prompt's own name
         * @return whether the caller sees it and may get it
         */
        public boolean prompt(String server, String prompt) {
            return decide(grant -> grant.prompt(server, prompt));
        }

        /**
         * @param server the server that lists the resource or the template
         * @param uri the resource's URI, or a template's URI template
         * @return whether the caller sees it and may read it (or complete its arguments)
         */
        public boolean resource(String server, String uri) {
            return decide(grant -> grant.resource(server, uri));
        }

        /**
         * @param server a server (the manager's name for it)
         * @return whether a rule gives the caller the whole server ({@code servers}) and none takes it away: a caller
         *     given some of its tools alone is not given the server
         */
        public boolean server(String server) {
            return decide(grant -> grant.server(server));
        }

        /** @return whether the caller may see everything (no policy speaks of it) */
        public boolean everything() {
            return allows == null && denies.isEmpty();
        }

        private boolean decide(java.util.function.Predicate<Grant> test) {
            if (denies.stream().anyMatch(test)) {
                return false;
            }
            return allows == null || allows.stream().anyMatch(test);
        }
    }

    /**
     * Token buckets: a caller may make {@code burst} requests at once, and {@code perSecond} a second over time.
     *
     * @param client the bucket of every request of one client, or {@code null}: none
     * @param tool the bucket of one client's calls of one tool, or {@code null}: none
     */
    public record Limits(Rate client, Rate tool) {
        /** No limit. */
        public static final Limits NONE = new Limits(null, null);
    }

    /**
     * @param perSecond how many requests a second over time
     * @param burst how many at once
     */
    public record Rate(double perSecond, double burst) {
        /** Checks. */
        public Rate {
            if (!(perSecond > 0) || !(burst >= 1) || Double.isInfinite(perSecond) || Double.isInfinite(burst)) {
                throw new IllegalArgumentException("a rate needs perSecond > 0 and burst >= 1");
            }
        }
    }

    /**
     * One rule.
     *
     * @param match what it applies to
     * @param allow what it allows
     * @param deny what it denies
     * @param limits the rate limits of the callers it matches (the first matching rule that has some wins)
     */
    public record Rule(Match match, Optional<Grant> allow, Optional<Grant> deny, Optional<Limits> limits) {
        boolean matches(Caller caller, boolean local) {
            return match.matches(caller, local);
        }
    }

    /**
     * The conditions of a rule: each named one must hold; a list holds when any of its items does.
     *
     * @param local whether it is about {@link Caller#LOCAL} (then it matches that caller alone)
     * @param subjects globs of the subject
     * @param clients globs of the OAuth client
     * @param groups groups, one of which the caller must be in
     * @param scopes scopes, one of which the caller must have
     * @param claims claims by JSON pointer, each with the values one of which it must have (a claim that is an array
     *     holds when one of its items does)
     */
    public record Match(boolean local, List<Pattern> subjects, List<Pattern> clients, List<String> groups,
            List<String> scopes, Map<JsonPointer, List<String>> claims) {

        boolean matches(Caller caller, boolean isLocal) {
            if (local != isLocal) {
                return false;
            }
            if (local) {
                return true;
            }
            if (!subjects.isEmpty() && subjects.stream().noneMatch(p -> p.matcher(caller.subject()).matches())) {
                return false;
            }
            if (!clients.isEmpty() && (caller.client().isEmpty()
                    || clients.stream().noneMatch(p -> p.matcher(caller.client().get()).matches()))) {
                return false;
            }
            if (!groups.isEmpty() && groups.stream().noneMatch(caller.groups()::contains)) {
                return false;
            }
            if (!scopes.isEmpty() && scopes.stream().noneMatch(caller.scopes()::contains)) {
                return false;
            }
            for (Map.Entry<JsonPointer, List<String>> claim : claims.entrySet()) {
                JsonNode value = caller.claims().at(claim.getKey());
                List<String> have = new ArrayList<>();
                if (value.isArray()) {
                    value.forEach(item -> {
                        if (item.isValueNode()) {
                            have.add(item.asString());
                        }
                    });
                } else if (value.isValueNode() && !value.isNull()) {
                    have.add(value.asString());
                }
                if (have.stream().noneMatch(claim.getValue()::contains)) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * What a rule allows or denies.
     *
     * @param servers globs of server names
     * @param tools globs of {@code server/tool}
     * @param prompts globs of {@code server/prompt}
     * @param resources globs of URIs
     */
    public record Grant(List<Pattern> servers, List<Pattern> tools, List<Pattern> prompts, List<Pattern> resources) {
        boolean server(String server) {
            return any(servers, server);
        }

        boolean tool(String server, String tool) {
            return any(servers, server) || any(tools, server + "/" + tool);
        }

        boolean prompt(String server, String prompt) {
            return any(servers, server) || any(prompts, server + "/" + prompt);
        }

        boolean resource(String server, String uri) {
            return any(servers, server) || any(resources, uri);
        }

        private static boolean any(List<Pattern> patterns, String value) {
            for (Pattern pattern : patterns) {
                if (pattern.matcher(value).matches()) {
                    return true;
                }
            }
            return false;
        }
    }

    // ------------------------------------------------------------------------------------------ reading

    /**
     * Reads a policy.
     *
     * @param text the policy's JSON
     * @param source where it comes from (a file's path), for the messages
     * @return the policy
     * @throws McpException naming the source and the position (line and column, or the JSON pointer) of what is wrong
     */
    public static Policy parse(String text, String source) {
        String lower = source.toLowerCase(java.util.Locale.ROOT);
        JsonNode root = lower.endsWith(".yaml") || lower.endsWith(".yml") ? yaml(text, source) : json(text, source);
        Reader reader = new Reader(source);
        return reader.policy(root);
    }

    private static JsonNode json(String text, String source) {
        try {
            return McpJson.mapper().readTree(text);
        } catch (JacksonException e) {
            TokenStreamLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new McpException("Policy " + source + " is not valid JSON" + where + ": " + e.getOriginalMessage());
        }
    }

    /**
     * The YAML form (a Kubernetes ConfigMap's usual one), read by snakeyaml-engine's loader (aliases resolved and
     * bounded, duplicate keys refused) and turned into the same tree as the JSON form.
     */
    private static JsonNode yaml(String text, String source) {
        org.snakeyaml.engine.v2.api.LoadSettings settings = org.snakeyaml.engine.v2.api.LoadSettings.builder()
                .setSchema(new org.snakeyaml.engine.v2.schema.CoreSchema())
                .setAllowDuplicateKeys(false)
                .setAllowRecursiveKeys(false)
                .setLabel(source)
                .build();
        Object value;
        try {
            value = new org.snakeyaml.engine.v2.api.Load(settings).loadFromString(text);
        } catch (org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException e) {
            String where = e.getProblemMark().map(mark -> " at line " + (mark.getLine() + 1) + ", column "
                    + (mark.getColumn() + 1)).orElse("");
            throw new McpException("Policy " + source + " is not valid YAML" + where + ": " + e.getProblem());
        } catch (org.snakeyaml.engine.v2.exceptions.YamlEngineException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            throw new McpException("Policy " + source + " is not valid YAML: " + message);
        }
        try {
            return value == null ? McpJson.object() : McpJson.mapper().valueToTree(value);
        } catch (JacksonException | IllegalArgumentException e) {
            throw new McpException("Policy " + source + " holds a YAML value JSON cannot hold: " + e.getMessage());
        }
    }

    /** Reads the JSON tree, naming the JSON pointer of what is wrong. */
    private record Reader(String source) {

        Policy policy(JsonNode root) {
            object(root, "");
            known(root, "", "rules", "rateLimits", "description");
            List<Rule> rules = new ArrayList<>();
            JsonNode list = root.path("rules");
            if (!list.isMissingNode() && !list.isArray()) {
                throw wrong("/rules", "must be an array of rules");
            }
            boolean local = false;
            for (int i = 0; i < list.size(); i++) {
                Rule rule = rule(list.get(i), "/rules/" + i);
                local |= rule.match().local();
                rules.add(rule);
            }
            JsonNode limits = root.path("rateLimits");
            int maxTracked = DEFAULT_MAX_TRACKED;
            if (limits.has("maxTracked")) {
                JsonNode max = limits.get("maxTracked");
                if (!max.canConvertToInt() || max.asInt() < 16 || !max.isIntegralNumber()) {
                    throw wrong("/rateLimits/maxTracked", "must be a whole number of at least 16");
                }
                maxTracked = max.asInt();
            }
            return new Policy(rules, limits.isMissingNode() ? Limits.NONE : limits(limits, "/rateLimits", true),
                    maxTracked, local);
        }

        Rule rule(JsonNode node, String at) {
            object(node, at);
            known(node, at, "match", "allow", "deny", "rateLimits", "description");
            if (!node.has("allow") && !node.has("deny") && !node.has("rateLimits")) {
                throw wrong(at, "a rule needs \"allow\", \"deny\" or \"rateLimits\"");
            }
            JsonNode match = node.path("match");
            return new Rule(match(match, at + "/match"),
                    node.has("allow") ? Optional.of(grant(node.get("allow"), at + "/allow")) : Optional.empty(),
                    node.has("deny") ? Optional.of(grant(node.get("deny"), at + "/deny")) : Optional.empty(),
                    node.has("rateLimits") ? Optional.of(limits(node.get("rateLimits"), at + "/rateLimits", false))
                            : Optional.empty());
        }

        Match match(JsonNode node, String at) {
            if (node.isMissingNode()) {
                return new Match(false, List.of(), List.of(), List.of(), List.of(), Map.of());
            }
            object(node, at);
            known(node, at, "local", "subject", "client", "groups", "scopes", "claims");
            boolean local = false;
            if (node.has("local")) {
                if (!node.get("local").isBoolean()) {
                    throw wrong(at + "/local", "must be true or false");
                }
                local = node.get("local").asBoolean();
                if (local && node.size() > 1) {
                    throw wrong(at, "\"local\": true matches the machine's own user, which has no claims: name nothing "
                            + "else");
                }
            }
            Map<JsonPointer, List<String>> claims = new java.util.LinkedHashMap<>();
            JsonNode claimNode = node.path("claims");
            if (!claimNode.isMissingNode()) {
                object(claimNode, at + "/claims");
                for (Map.Entry<String, JsonNode> claim : claimNode.properties()) {
                    String pointerAt = at + "/claims/" + claim.getKey().replace("~", "~0").replace("/", "~1");
                    JsonPointer pointer;
                    try {
                        pointer = JsonPointer.compile(claim.getKey());
                    } catch (IllegalArgumentException e) {
                        throw wrong(pointerAt, "is not a JSON pointer (such as /org/team)");
                    }
                    claims.put(pointer, strings(claim.getValue(), pointerAt));
                }
            }
            return new Match(local, globs(node.path("subject"), at + "/subject", false),
                    globs(node.path("client"), at + "/client", false), strings(node.path("groups"), at + "/groups"),
                    strings(node.path("scopes"), at + "/scopes"), claims);
        }

        Grant grant(JsonNode node, String at) {
            object(node, at);
            known(node, at, "servers", "tools", "prompts", "resources");
            return new Grant(globs(node.path("servers"), at + "/servers", false),
                    globs(node.path("tools"), at + "/tools", false), globs(node.path("prompts"), at + "/prompts", false),
                    globs(node.path("resources"), at + "/resources", true));
        }

        Limits limits(JsonNode node, String at, boolean top) {
            object(node, at);
            if (top) {
                known(node, at, "client", "tool", "maxTracked");
            } else {
                known(node, at, "client", "tool");
            }
            return new Limits(rate(node.get("client"), at + "/client"), rate(node.get("tool"), at + "/tool"));
        }

        Rate rate(JsonNode node, String at) {
            if (node == null) {
                return null;
            }
            object(node, at);
            known(node, at, "perSecond", "burst");
            JsonNode perSecond = node.path("perSecond");
            if (!perSecond.isNumber() || !(perSecond.asDouble() > 0) || perSecond.asDouble() > 1e9) {
                throw wrong(at + "/perSecond", "must be a number above 0");
            }
            JsonNode burst = node.path("burst");
            double b = burst.isMissingNode() ? Math.max(1, Math.ceil(perSecond.asDouble())) : burst.asDouble();
            if (!burst.isMissingNode() && (!burst.isNumber() || !(b >= 1) || b > 1e9)) {
                throw wrong(at + "/burst", "must be a number of at least 1");
            }
            return new Rate(perSecond.asDouble(), b);
        }

        List<String> strings(JsonNode node, String at) {
            if (node.isMissingNode()) {
                return List.of();
            }
            if (node.isString()) {
                return List.of(node.asString());
            }
            if (!node.isArray()) {
                throw wrong(at, "must be a string or an array of strings");
            }
            List<String> values = new ArrayList<>();
            for (int i = 0; i < node.size(); i++) {
                if (!node.get(i).isString()) {
                    throw wrong(at + "/" + i, "must be a string");
                }
                values.add(node.get(i).asString());
            }
            return values;
        }

        List<Pattern> globs(JsonNode node, String at, boolean uri) {
            List<Pattern> patterns = new ArrayList<>();
            for (String glob : strings(node, at)) {
                if (glob.isEmpty()) {
                    throw wrong(at, "holds an empty pattern");
                }
                patterns.add(glob(glob, uri));
            }
            return patterns;
        }

        void object(JsonNode node, String at) {
            if (!node.isObject()) {
                throw wrong(at.isEmpty() ? "/" : at, "must be an object");
            }
        }

        void known(JsonNode node, String at, String... names) {
            List<String> allowed = List.of(names);
            for (String name : node.propertyNames()) {
                if (!allowed.contains(name)) {
                    throw wrong(at + "/" + name, "is not a known field (known here: " + String.join(", ", allowed)
                            + ")");
                }
            }
        }

        McpException wrong(String at, String what) {
            return new McpException("Policy " + source + ": " + at + " " + what);
        }
    }

    /**
     * @param glob a pattern: {@code *} any run of characters ({@code /} excluded for a URI, where {@code **} takes
     *     it), {@code ?} one character, anything else itself
     * @param uri whether it is a URI pattern
     * @return the regular expression
     */
    static Pattern glob(String glob, boolean uri) {
        StringBuilder regex = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' || c == '?') {
                if (literal.length() > 0) {
                    regex.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                if (c == '?') {
                    regex.append(uri ? "[^/]" : ".");
                } else if (uri && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                    regex.append(".*");
                    i++;
                } else {
                    regex.append(uri ? "[^/]*" : ".*");
                }
            } else {
                literal.append(c);
            }
        }
        if (literal.length() > 0) {
            regex.append(Pattern.quote(literal.toString()));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}
