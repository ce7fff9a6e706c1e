package mcp.server.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Matches URIs against the URI templates of resource templates (RFC 6570): simple expansion {@code {name}} matches
 * one or more characters other than {@code /}, {@code ?} and {@code #}; reserved expansion {@code {+name}} matches
 * anything but an empty string. That covers what MCP servers publish; other operators match nothing.
 */
public final class UriTemplates {

    private static final Pattern EXPRESSION = Pattern.compile("\\{([+]?)([A-Za-z0-9_.%]+)}");

    private final Pattern pattern;
    private final List<String> names;

    private UriTemplates(Pattern pattern, List<String> names) {
        this.pattern = pattern;
        this.names = names;
    }

    /**
     * @param template a URI template
     * @return its matcher
     */
    public static UriTemplates of(String template) {
        StringBuilder regex = new StringBuilder();
        List<String> names = new ArrayList<>();
        Matcher m = EXPRESSION.matcher(template);
        int last = 0;
        while (m.find()) {
            regex.append(Pattern.quote(template.substring(last, m.start())));
            regex.append(m.group(1).isEmpty() ? "([^/?#]+)" : "(.+)");
            names.add(m.group(2));
            last = m.end();
        }
        regex.append(Pattern.quote(template.substring(last)));
        return new UriTemplates(Pattern.compile(regex.toString()), List.copyOf(names));
    }

    /**
     * @param uri a URI
     * @return the variables when the URI matches the template
     */
    public Optional<Map<String, String>> match(String uri) {
        Matcher m = pattern.matcher(uri);
        if (!m.matches()) {
            return Optional.empty();
        }
        Map<String, String> variables = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            variables.put(names.get(i), java.net.URLDecoder.decode(m.group(i + 1).replace("+", "%2B"),
                    java.nio.charset.StandardCharsets.UTF_8));
        }
        return Optional.of(variables);
    }
}
