"""An MCP server on the Python SDK (mcp 2.3.0) for mcp-host's interoperability tests of both eras.

stdio by default; `era_server.py http PORT` serves stateless Streamable HTTP on 127.0.0.1:PORT/mcp.
Tools: add (plain), greet (asks the user's name by elicitation: on 2026-07-28 through a multi
round-trip request, on 2025 through a server request), grow (adds a tool and tells the client), chatter (logs
through the SDK's context at a level).
"""
import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve

app = MCPServer("era-server", version="1.0.0")


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("Your name?", Name)


@app.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@app.tool()
async def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Greets the user by the name it asks for."""
    return f"hello {who.name}"


@app.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool 'extra' and notifies the client that the tool list changed."""

    def extra() -> str:
        """A tool that exists once grow was called."""
        return "extra"

    app.add_tool(extra)
    await ctx.notify_tools_changed()
    return "grown"


@app.tool()
async def chatter(ctx: Context, level: str = "info", message: str = "chatter") -> str:
    """Logs the message at the level through the SDK's context (notifications/message), then answers."""
    await ctx.log(level, message, logger_name="era-server")
    return f"logged {level}"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        app.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]), stateless_http=True)
    else:
        app.run()
