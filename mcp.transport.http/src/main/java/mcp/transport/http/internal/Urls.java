package mcp.transport.http.internal;

import java.net.URI;

/** URLs as they may appear in messages and logs. */
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
}
