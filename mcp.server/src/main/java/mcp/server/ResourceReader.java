package mcp.server;

import java.util.Map;
import mcp.api.ResourceResult;

/**
 * Reads a resource ({@link McpServer.Builder#resource}) or a resource of a template
 * ({@link McpServer.Builder#resourceTemplate}). It runs on a server worker thread and may block.
 */
@FunctionalInterface
public interface ResourceReader {

    /**
     * @param uri the URI asked for
     * @param variables the template's variables as the URI fills them; empty for a plain resource
     * @param context the request's context
     * @return the contents; {@code null} when there is no such resource (answered as the era says a missing
     *     resource is: {@link mcp.protocol.ErrorCodes#resourceNotFound})
     * @throws Exception when reading fails
     */
    ResourceResult read(String uri, Map<String, String> variables, RequestContext context) throws Exception;
}
