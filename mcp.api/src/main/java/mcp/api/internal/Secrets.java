package mcp.api.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks the secret-looking parts of command lines and URLs before they reach a log line, a status, an
 * error or any other output, as env and header values are (names only). The values passed to the process
 * or sent in the request are never touched: callers mask a copy for display.
 *
 * <p>The rule. A <em>name</em> looks like a credential when one of its words (split at {@code -}, {@code _},
 * {@code .}, other punctuation and camelCase humps: {@code exaApiKey} is {@code exa api key}) is one of
 * {@code token secret password passwd pwd passphrase auth authorization credential(s) bearer cookie key
 * apikey accesskey secretkey privatekey sig signature}, or ends in {@code apikey token secret password
 * passwd} ({@code EXAAPIKEY}, {@code authtoken}); a name whose first word is {@code no} ({@code --no-auth})
 * is a switch, not a credential. So {@code --max-tokens}, {@code --model}, {@code --author},
 * {@code --keymap} and {@code --monkey} are not. Then, in an argument:
 * <ul>
 *   <li>{@code --NAME=VALUE}, {@code -NAME=VALUE} and {@code NAME=VALUE}: the value is hidden;</li>
 *   <li>{@code --NAME VALUE} (or {@code -NAME}): the next argument is hidden unless it starts with {@code -};</li>
 *   <li>{@code NAME: VALUE} (a header given as an argument, e.g. {@code Authorization: Bearer x}): the value;</li>
 *   <li>{@code Bearer X}, {@code Basic X}, {@code Token X}: {@code X};</li>
 *   <li>in any URL: the user info ({@code https://<hidden>@host}) and the values of query (or fragment)
 *       parameters with such a name ({@code ?exaApiKey=<hidden>&page=2}).</li>
 * </ul>
 * A value that only names a variable ({@code ${TOKEN}}, {@code $TOKEN}, {@code ${env:TOKEN}},
 * {@code {env:TOKEN}}, {@code {{secret}}}) holds no secret and is shown as is. The masked form keeps the
 * name and replaces the value by {@link #HIDDEN} (the stored approvals use a fingerprint in its place,
 * through the {@code replacement} overloads).
 */
public final class Secrets {

    /** What a hidden value is shown as. */
    public static final String HIDDEN = "<hidden>";

    private static final UnaryOperator<String> HIDE = value -> HIDDEN;

    /** A value that only names a variable: shown as is, since it holds no secret. */
    private static final Pattern REFERENCE = Pattern.compile(
            "\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?}|\\$\\{(?:env|input):[^}]+}|\\$[A-Za-z_][A-Za-z0-9_]*"
            + "|\\{env:[A-Za-z_][A-Za-z0-9_]*}|\\{\\{[^}]+}}");
    private static final Set<String> SECRET_WORDS = Set.of("token", "secret", "password", "passwd", "pwd",
            "passphrase", "auth", "authorization", "credential", "credentials", "bearer", "cookie", "key", "apikey",
            "accesskey", "secretkey", "privatekey", "sig", "signature");
    private static final List<String> SECRET_ENDINGS = List.of("apikey", "token", "secret", "password", "passwd");
    private static final Pattern WORD_BREAK = Pattern.compile("[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])");
    private static final Pattern OPTION = Pattern.compile("-{1,2}([A-Za-z0-9][A-Za-z0-9_.-]*)");
    private static final Pattern ASSIGNMENT = Pattern.compile("(-{0,2}([A-Za-z_][A-Za-z0-9_.-]*)=)(.+)", Pattern.DOTALL);
    private static final Pattern HEADER = Pattern.compile("([A-Za-z][A-Za-z0-9_-]*):\\s*(.+)", Pattern.DOTALL);
    private static final Pattern SCHEME_VALUE = Pattern.compile("(?i)((?:bearer|basic|token)\\s+)(\\S.*)", Pattern.DOTALL);
    private static final Pattern URL_USER_INFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)([^/?#@\\s]+)@");
    private static final Pattern URL_PARAMETER = Pattern.compile("([?&#;])([^=&#;\\s]+)=([^&#;\\s\"']*)");
    private static final Pattern TEXT_ASSIGNMENT = Pattern.compile(
            "(?<![A-Za-z0-9_.-])(-{0,2}([A-Za-z_][A-Za-z0-9_.-]*)(?:=|:\\s+))([^\\s,;&\"')\\]}]+)");
    private static final Pattern TEXT_BEARER = Pattern.compile("(?i)\\b(bearer\\s+)([^\\s,;\"')\\]}]+)");
    private static final Pattern TEXT_OPTION = Pattern.compile("(?<![A-Za-z0-9_.-])(-{1,2}([A-Za-z0-9][A-Za-z0-9_.-]*)\\s+)([^\\s-][^\\s,;\"')\\]}]*)");

    private Secrets() {
    }

    /**
     * @param name an option, variable, header or query parameter name ({@code --api-key}, {@code exaApiKey})
     * @return whether it looks like the name of a credential (see the rule above)
     */
    public static boolean isSecretName(String name) {
        String[] words = WORD_BREAK.split(name.replaceFirst("^-+", ""));
        List<String> lower = new ArrayList<>();
        for (String word : words) {
            if (!word.isEmpty()) {
                lower.add(word.toLowerCase(Locale.ROOT));
            }
        }
        if (lower.isEmpty() || lower.get(0).equals("no")) {
            return false;
        }
        for (String word : lower) {
            if (SECRET_WORDS.contains(word) || SECRET_ENDINGS.stream().anyMatch(word::endsWith)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param value a value
     * @return whether it only names a variable ({@code ${TOKEN}}), which holds no secret
     */
    public static boolean isReference(String value) {
        return REFERENCE.matcher(value).matches();
    }

    /**
     * @param args a command's arguments
     * @return a copy for display, every secret-looking value replaced by {@link #HIDDEN}
     */
    public static List<String> maskArgs(List<String> args) {
        return maskArgs(args, HIDE);
    }

    /**
     * @param args a command's arguments
     * @param replacement what a secret value is shown as
     * @return a copy for display, every secret-looking value replaced
     */
    public static List<String> maskArgs(List<String> args, UnaryOperator<String> replacement) {
        List<String> shown = new ArrayList<>(args.size());
        boolean valueOfSecretOption = false;
        for (String arg : args) {
            if (valueOfSecretOption && !arg.startsWith("-") && !isReference(arg)) {
                shown.add(replacement.apply(arg));
            } else {
                shown.add(maskArg(arg, replacement));
            }
            Matcher option = OPTION.matcher(arg);
            valueOfSecretOption = option.matches() && isSecretName(option.group(1));
        }
        return shown;
    }

    /**
     * @param command a program
     * @param args its arguments
     * @return the command line for display ({@code command arg ...}, masked)
     */
    public static String commandLine(String command, List<String> args) {
        List<String> all = new ArrayList<>(1 + args.size());
        all.add(command);
        all.addAll(args);
        return String.join(" ", maskArgs(all));
    }

    private static String maskArg(String arg, UnaryOperator<String> replacement) {
        Matcher assignment = ASSIGNMENT.matcher(arg);
        if (assignment.matches() && isSecretName(assignment.group(2))) {
            String value = assignment.group(3);
            return assignment.group(1) + (isReference(value) ? value : maskValue(value, replacement));
        }
        Matcher header = HEADER.matcher(arg);
        if (header.matches() && !arg.contains("://") && isSecretName(header.group(1))) {
            String value = header.group(2);
            return arg.substring(0, header.start(2)) + (isReference(value) ? value : maskValue(value, replacement));
        }
        Matcher scheme = SCHEME_VALUE.matcher(arg);
        if (scheme.matches()) {
            return isReference(scheme.group(2)) ? arg : scheme.group(1) + replacement.apply(scheme.group(2));
        }
        return maskUrls(arg, replacement);
    }

    /** A secret value: {@code Bearer <hidden>} keeps its scheme, anything else is hidden whole. */
    private static String maskValue(String value, UnaryOperator<String> replacement) {
        Matcher scheme = SCHEME_VALUE.matcher(value);
        return scheme.matches() ? scheme.group(1) + replacement.apply(scheme.group(2)) : replacement.apply(value);
    }

    /**
     * @param url a URL (or a text holding URLs)
     * @return it with user info and secret-looking query parameter values replaced by {@link #HIDDEN}
     */
    public static String maskUrl(String url) {
        return maskUrls(url, HIDE);
    }

    /**
     * @param url a URL (or a text holding URLs)
     * @param replacement what a secret value is shown as
     * @return it with user info and secret-looking query parameter values replaced
     */
    public static String maskUrl(String url, UnaryOperator<String> replacement) {
        return maskUrls(url, replacement);
    }

    private static String maskUrls(String text, UnaryOperator<String> replacement) {
        if (!text.contains("://")) {
            return text;
        }
        Matcher userInfo = URL_USER_INFO.matcher(text);
        StringBuilder out = new StringBuilder();
        while (userInfo.find()) {
            String value = userInfo.group(2);
            userInfo.appendReplacement(out, Matcher.quoteReplacement(userInfo.group(1)
                    + (isReference(value) ? value : replacement.apply(value)) + "@"));
        }
        userInfo.appendTail(out);
        Matcher parameter = URL_PARAMETER.matcher(out.toString());
        StringBuilder result = new StringBuilder();
        while (parameter.find()) {
            String value = parameter.group(3);
            boolean hide = !value.isEmpty() && !isReference(value) && isSecretName(parameter.group(2));
            parameter.appendReplacement(result, Matcher.quoteReplacement(parameter.group(1) + parameter.group(2) + "="
                    + (hide ? replacement.apply(value) : value)));
        }
        parameter.appendTail(result);
        return result.toString();
    }

    /**
     * For a text that did not come from a config (a server's stderr, a message of another library): hides
     * the URLs' secrets and the values of {@code NAME=VALUE}, {@code NAME: VALUE} and {@code --NAME VALUE}
     * when NAME looks like a credential. Best effort, for defence in depth: what mcp-host writes itself is
     * masked where it is built.
     *
     * @param text a text
     * @return it with secret-looking values replaced by {@link #HIDDEN}
     */
    public static String maskText(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String masked = maskUrls(text, HIDE);
        Matcher bearer = TEXT_BEARER.matcher(masked);
        masked = bearer.replaceAll(match -> Matcher.quoteReplacement(match.group(1) + HIDDEN));
        masked = replaceValues(TEXT_ASSIGNMENT, masked);
        return replaceValues(TEXT_OPTION, masked);
    }

    private static String replaceValues(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        StringBuilder out = new StringBuilder();
        int copied = 0;
        int from = 0;
        while (from < text.length() && matcher.find(from)) {
            String value = matcher.group(3);
            boolean hide = isSecretName(matcher.group(2)) && !value.startsWith("<hidden") && !isReference(value);
            if (hide) {
                out.append(text, copied, matcher.start(3)).append(HIDDEN);
                copied = matcher.end(3);
                from = copied;
            } else {
                // The value may itself hold a NAME=VALUE ("option: --token=x"): look again from there.
                from = matcher.end(1);
            }
        }
        return out.append(text, copied, text.length()).toString();
    }
}
