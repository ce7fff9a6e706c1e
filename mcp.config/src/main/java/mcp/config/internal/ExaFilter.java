package mcp.config.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.spi.ConfigFilter;

/**
 * The {@code exa} filter (SPEC §3): agent runtimes that search with Exa natively do not want the
 * Exa MCP server as well, only its API key. When the option {@value #OPTION} is on (the default),
 * an Exa server is dropped (reported as {@link mcp.config.SkippedServer.Reason#EXA}) and its API
 * key, if one is found, is handed over as {@value #EXTRACT_KIND}.
 *
 * <p>A server is an Exa server when its name, lower-cased, is {@code exa}, or its url or any of its
 * args contains {@code mcp.exa.ai} (ignoring case). The key is the first of: the {@code exaApiKey}
 * query parameter of the url, an {@code exaApiKey=} parameter in an arg (as in
 * {@code npx mcp-remote https://mcp.exa.ai/mcp?exaApiKey=...}), the {@code EXA_API_KEY} env entry.
 * A candidate that is empty or still holds an unresolved {@code ${VAR}} is no key, and the next
 * place is tried.
 *
 * <p>Filters run in id order, so {@code enabled} has dropped disabled entries before this one runs:
 * a disabled Exa server gives no key. A project-level Exa server while project config is off is
 * dropped too, but its key is not taken: project config off means a project's files have no effect.
 *
 * <p>Keys are secrets: this class never logs them and never puts them in a reason.
 */
public final class ExaFilter implements ConfigFilter {

    /** This filter's id. */
    public static final String ID = "exa";

    /** The option that turns Exa filtering on (default {@code true}). */
    public static final String OPTION = "exaFilter";

    /** The kind under which keys are handed over with {@link Context#extract(String, String)}. */
    public static final String EXTRACT_KIND = "exaApiKey";

    private static final String EXA_HOST = "mcp.exa.ai";

    /** {@code exaApiKey=<value>} at the start of a string or after {@code ?}, {@code &} or a space. */
    private static final Pattern KEY_PARAMETER =
            Pattern.compile("(?:^|[?&\\s])exaApiKey=([^&#\\s]+)", Pattern.CASE_INSENSITIVE);

    /** For {@link java.util.ServiceLoader}. */
    public ExaFilter() {
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Decision apply(ServerSpec server, Context context) {
        if (!context.option(OPTION, true) || !isExa(server)) {
            return Decision.keep(server);
        }
        boolean untrustedProject = server.source().level() == SourceMetadata.Level.PROJECT
                && !context.option(ProjectFilter.OPTION, true);
        if (untrustedProject) {
            return Decision.drop("Exa server (exaFilter is on); project config is off, so its API key is not used");
        }
        Optional<String> key = apiKey(server);
        key.ifPresent(k -> context.extract(EXTRACT_KIND, k));
        return Decision.drop(key.isPresent() ? "Exa server (exaFilter is on); its API key was extracted"
                : "Exa server (exaFilter is on); no API key found");
    }

    /**
     * @param server an entry
     * @return whether it is an Exa server
     */
    static boolean isExa(ServerSpec server) {
        return server.name().toLowerCase(Locale.ROOT).equals("exa")
                || server.url().map(ExaFilter::mentionsExa).orElse(false)
                || server.args().stream().anyMatch(ExaFilter::mentionsExa);
    }

    private static boolean mentionsExa(String text) {
        return text.toLowerCase(Locale.ROOT).contains(EXA_HOST);
    }

    /**
     * @param server an Exa entry
     * @return its API key: from the url, else the args, else {@code env.EXA_API_KEY}
     */
    static Optional<String> apiKey(ServerSpec server) {
        return Stream.concat(Stream.concat(server.url().stream(), server.args().stream()).map(ExaFilter::parameter),
                        Stream.of(Optional.ofNullable(server.env().get("EXA_API_KEY"))))
                .flatMap(Optional::stream)
                .filter(ExaFilter::usable)
                .findFirst();
    }

    private static Optional<String> parameter(String text) {
        Matcher m = KEY_PARAMETER.matcher(text);
        while (m.find()) {
            String value = decode(m.group(1));
            if (usable(value)) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }

    private static String decode(String value) {
        try {
            // Percent-decoding only: a '+' in a key is a '+', not a space.
            return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return value; // a stray '%': not percent-encoded, take it as written
        }
    }

    private static boolean usable(String key) {
        return !key.isBlank() && !key.contains("${");
    }
}
