package mcp.server;

import java.net.URI;

/** The server served over Streamable HTTP. */
public interface HttpEndpoint extends ServerEndpoint {

    /** @return the endpoint's URL, with the port actually bound ({@code http://127.0.0.1:PORT/mcp}) */
    URI uri();
}
