"""An MCP server on the Python SDK (mcp 2.3.0) for mcp-host's interoperability tests of both eras.

stdio by default; `era_server.py http PORT` serves stateless Streamable HTTP on 127.0.0.1:PORT/mcp.
Tools: add (plain), greet (asks the user's name by elicitation: on 2026-07-28 through a multi
round-trip request, on 2025 through a server request), grow (adds a tool and tells the client), bump
(changes the resource memo://counter and tells its subscribers, in either era), chatter (logs through the
SDK's context at a level).
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

# --- Resource subscriptions (mcp-host's SubscriptionsIT): memo://counter changes when `bump` is called. ---
# 2026-07-28: the update reaches subscriptions/listen streams whose resourceSubscriptions name the URI (the SDK's
# bus). 2025: MCPServer serves no resources/subscribe, so this script registers it on the low-level server (which
# then declares resources.subscribe) and sends the update to a session that subscribed.
import mcp_types

COUNTER_URI = "memo://counter"
_counter = {"value": 0}
_legacy_subscribed: set[str] = set()


@app.resource(COUNTER_URI, name="counter", mime_type="text/plain")
def counter() -> str:
    """A number that bump increments."""
    return f"counter {_counter['value']}"


async def _subscribe(ctx, params: mcp_types.SubscribeRequestParams) -> mcp_types.EmptyResult:
    _legacy_subscribed.add(str(params.uri))
    return mcp_types.EmptyResult()


async def _unsubscribe(ctx, params: mcp_types.UnsubscribeRequestParams) -> mcp_types.EmptyResult:
    _legacy_subscribed.discard(str(params.uri))
    return mcp_types.EmptyResult()


app._lowlevel_server.add_request_handler("resources/subscribe", mcp_types.SubscribeRequestParams, _subscribe)
app._lowlevel_server.add_request_handler("resources/unsubscribe", mcp_types.UnsubscribeRequestParams, _unsubscribe)


@app.tool()
async def bump(ctx: Context) -> str:
    """Increments memo://counter and tells its subscribers that it changed."""
    _counter["value"] += 1
    await ctx.notify_resource_updated(COUNTER_URI)
    if COUNTER_URI in _legacy_subscribed:
        await ctx.session.send_resource_updated(COUNTER_URI)
    return f"counter {_counter['value']}"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        app.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]), stateless_http=True)
    else:
        app.run()
