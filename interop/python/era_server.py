"""An MCP server on the Python SDK (mcp 2.3.0) for mcp-host's interoperability tests of both eras.

stdio by default; `era_server.py http PORT` serves stateless Streamable HTTP on 127.0.0.1:PORT/mcp.
Tools: add (plain), greet (asks the user's name by elicitation: on 2026-07-28 through a multi
round-trip request, on 2025 through a server request), visit (asks the user to open a page by URL-mode
elicitation, the same two ways, and says which action came back; the URL carries a token that must never
reach the model), vault (answers every other call with the URL elicitation required error, -32042, whose URL
carries a token too), grow (adds a tool and tells the client), bump
(changes the resource memo://counter and tells its subscribers, in either era), chatter (logs through the
SDK's context at a level).
Resources, a template and a prompt (mcp-host's resources/prompts/completions tests): the text resource
era://notes/readme, the binary era://data/pixels (every byte value, four times), the template
era://cities/{city} and the prompt trip {city*, days}, whose city both complete from CITIES.
"""
import sys
from typing import Annotated

from pydantic import BaseModel

from mcp import UrlElicitationRequiredError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
import mcp_types
from mcp_types import Completion, PromptReference, ResourceTemplateReference

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


VISIT_URL = "https://era.example/sign-in?token=era-secret-token"


@app.tool()
async def visit(ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Asks the user to open a sign-in page (URL-mode elicitation) and answers with the user's action."""
    if ctx.protocol_version != "2026-07-28":
        # The handshake era: a server request, and the completion notification once the page is "done".
        result = await ctx.elicit_url("Sign in to the era service", VISIT_URL, "visit-1")
        if result.action == "accept":
            await ctx.session.send_elicit_complete("visit-1")
        return f"visit {result.action}"
    responses = ctx.input_responses or {}
    answer = responses.get("visit")
    if answer is None:
        return mcp_types.InputRequiredResult(input_requests={"visit": mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestURLParams(message="Sign in to the era service", url=VISIT_URL,
                                                    elicitation_id="visit-1"))})
    action = answer.action if hasattr(answer, "action") else answer.get("action")
    return f"visit {action}"


VAULT_URL = "https://era.example/unlock?token=vault-secret-token"
vault_waiting = False


@app.tool()
def vault() -> str:
    """Refuses every other call until the user has finished on a page (URL elicitation required, -32042)."""
    global vault_waiting
    if not vault_waiting:
        # As if the user finished on the page before the client sends the call again.
        vault_waiting = True
        raise UrlElicitationRequiredError([mcp_types.ElicitRequestURLParams(
            message="Unlock the vault", url=VAULT_URL, elicitation_id="vault-1")])
    vault_waiting = False
    return "vault open"


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

# ---- resources, a resource template with completions, a prompt with arguments ----

PIXELS = bytes(range(256)) * 4
CITIES = ["Paris", "Perth", "Porto", "Prague", "Lima"]
CITY_TEMPLATE = "era://cities/{city}"


@app.resource("era://notes/readme", name="readme", title="Readme", description="A text resource.",
              mime_type="text/plain")
def readme() -> str:
    return "Notes of the era server."


@app.resource("era://data/pixels", name="pixels", description="Every byte value, four times.",
              mime_type="application/octet-stream")
def pixels() -> bytes:
    return PIXELS


@app.resource(CITY_TEMPLATE, name="city", description="The weather in a city.", mime_type="text/plain")
def city_weather(city: str) -> str:
    return f"Weather in {city}: sunny"


@app.prompt(title="Trip plan", description="Plans a trip to a city.")
def trip(city: str, days: str = "3") -> str:
    return f"Plan {days} days in {city}."


@app.completion()
async def complete_city(ref, argument, context):
    template = isinstance(ref, ResourceTemplateReference) and ref.uri == CITY_TEMPLATE
    prompt = isinstance(ref, PromptReference) and ref.name == "trip"
    if (template or prompt) and argument.name == "city":
        values = [c for c in CITIES if c.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    return None


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        app.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]), stateless_http=True)
    else:
        app.run()
