package mcp.it;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a real client ({@link RealClient}) connects: a Streamable HTTP endpoint with the headers to send on every
 * request, or a stdio command the client starts itself. The same target is given to every client; a gateway is one
 * more target.
 *
 * @param name the name a test shows
 * @param url the HTTP endpoint, or empty for stdio
 * @param headers sent with every HTTP request (a bearer token, say); empty for stdio
 * @param command the server command for stdio, or empty for HTTP
 */
record Target(String name, Optional<URI> url, Map<String, String> headers, List<String> command) {

    Target {
        Objects.requireNonNull(name, "name");
        headers = Map.copyOf(new LinkedHashMap<>(headers));
        command = List.copyOf(command);
        if (url.isPresent() == !command.isEmpty()) {
            throw new IllegalArgumentException("a target is reached over HTTP or over stdio, not both: " + name);
        }
    }

    static Target http(String name, URI url, Map<String, String> headers) {
        return new Target(name, Optional.of(url), headers, List.of());
    }

    static Target http(String name, URI url) {
        return http(name, url, Map.of());
    }

    static Target stdio(String name, List<String> command) {
        return new Target(name, Optional.empty(), Map.of(), command);
    }

    /** @return the same endpoint with other headers (none, a wrong token) */
    Target withHeaders(String otherName, Map<String, String> otherHeaders) {
        return new Target(otherName, url, otherHeaders, command);
    }

    /** @return the probes' arguments for it: {@code --url URL --header 'N: v'...}, or {@code --stdio CMD ARG...} last */
    List<String> probeArguments() {
        List<String> arguments = new ArrayList<>();
        if (url.isPresent()) {
            arguments.add("--url");
            arguments.add(url.get().toString());
            headers.forEach((header, value) -> {
                arguments.add("--header");
                arguments.add(header + ": " + value);
            });
        } else {
            arguments.add("--stdio");
            arguments.addAll(command);
        }
        return arguments;
    }

    /** The name only: headers may hold a token. */
    @Override
    public String toString() {
        return name;
    }
}
