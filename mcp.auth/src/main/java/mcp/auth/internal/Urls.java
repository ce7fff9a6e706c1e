package mcp.auth.internal;

import java.net.URI;

/** URLs as they may appear in messages and logs, and the canonical form of a server URL. */
public final class Urls {

    private Urls() {
    }

    /**
     * User info, query and fragment can hold credentials (an API key in the query is common), so they never
     * appear; an IPv6 host keeps its brackets.
     *
     * @param uri the URL
     * @return the URL without user info, query or fragment ({@code ?...} marks a query left out)
     */
    public static String redact(URI uri) {
        if (uri.getHost() == null) {
            return "<" + uri.getScheme() + " URL>";
        }
        StringBuilder out = new StringBuilder();
        out.append(uri.getScheme()).append("://").append(uri.getHost().contains(":") && !uri.getHost().startsWith("[")
                ? "[" + uri.getHost() + "]" : uri.getHost());
        if (uri.getPort() >= 0) {
            out.append(':').append(uri.getPort());
        }
        out.append(uri.getRawPath() == null ? "" : uri.getRawPath());
        if (uri.getRawQuery() != null) {
            out.append("?...");
        }
        return out.toString();
    }

    /**
     * The canonical URI of an MCP server (the MCP authorization spec, RFC 8707 resource indicator):
     * scheme and host in lower case, no query, no fragment, no trailing slash.
     *
     * @param uri the server URL
     * @return its canonical form
     */
    public static String canonical(URI uri) {
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return uri.getScheme().toLowerCase(java.util.Locale.ROOT) + "://"
                + uri.getRawAuthority().toLowerCase(java.util.Locale.ROOT) + path;
    }
}
