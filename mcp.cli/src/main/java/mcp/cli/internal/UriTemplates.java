package mcp.cli.internal;

import java.util.regex.Pattern;

/**
 * Whether a URI is one a resource template stands for: RFC 6570 matching, enough of it for the templates servers
 * list. A simple expression ({@code {id}}, level 1) matches one or more characters up to the next {@code /},
 * {@code ?} or {@code #}, as its expansion percent-encodes those; reserved and fragment expansion ({@code {+path}},
 * {@code {#frag}}, level 2) and the expressions of level 3 and 4 match any characters, possibly none.
 */
final class UriTemplates {

    private UriTemplates() {
    }

    /**
     * @param template a URI template, e.g. {@code test://items/{id}}
     * @param uri a URI
     * @return whether some values of the template's variables expand to exactly that URI
     */
    static boolean matches(String template, String uri) {
        return pattern(template).matcher(uri).matches();
    }

    private static Pattern pattern(String template) {
        StringBuilder regex = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            int open = template.indexOf('{', i);
            if (open < 0) {
                regex.append(Pattern.quote(template.substring(i)));
                break;
            }
            int close = template.indexOf('}', open);
            if (close < 0) {
                // Not a template after all: the rest is taken literally.
                regex.append(Pattern.quote(template.substring(i)));
                break;
            }
            if (open > i) {
                regex.append(Pattern.quote(template.substring(i, open)));
            }
            String expression = template.substring(open + 1, close);
            boolean simple = !expression.isEmpty() && "+#./;?&=,!@|".indexOf(expression.charAt(0)) < 0;
            regex.append(simple ? "[^/?#]+" : ".*");
            i = close + 1;
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}
