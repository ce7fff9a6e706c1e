"""A real MCP client for mcp-host's interoperability tests: the Python SDK's Client (mcp 2.3.0, pinned in
requirements.txt), used as its documentation shows.

probe_client.py [--era auto|2025|2026] [--timeout SECONDS] [--script JSON|@FILE]
                (--url URL [--header 'Name: value']... | --stdio CMD ARG...)

The eras are the Client's modes: auto (server/discover first, the initialize handshake as fallback), 2025 (mode
"legacy": the handshake only) and 2026 (mode "2026-07-28": adopted without a probe). The script, the one JSON document
on stdout, the exit code and the time bound are the same as the TypeScript probes' (interop/typescript/probe-common.mjs):
a JSON array of {"op": "tools"}, {"op": "call", "name", "arguments"}, {"op": "read", "uri"} and
{"op": "prompt", "name", "arguments"}; exit 0 only when the connection and every operation succeeded.
"""
import json
import os
import sys
import threading
import traceback

import anyio
import httpx2

from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

NAME = "py-sdk"
SDK = "mcp 2.3.0"
MODES = {"auto": "auto", "2025": "legacy", "2026": "2026-07-28"}
USAGE = ("usage: probe_client.py [--era auto|2025|2026] [--timeout SECONDS] [--script JSON|@FILE] "
         "(--url URL [--header 'Name: value']... | --stdio CMD ARG...)")


def fail_usage(message):
    print(f"{NAME}: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    options = {"era": "auto", "timeout": 30.0, "script": [{"op": "tools"}], "headers": {}, "url": None, "stdio": None}
    i = 0

    def value():
        nonlocal i
        if i + 1 >= len(argv):
            fail_usage(f"{argv[i]} needs a value")
        i += 1
        return argv[i]

    while i < len(argv):
        arg = argv[i]
        if arg == "--era":
            options["era"] = value()
            if options["era"] not in MODES:
                fail_usage(f"this SDK offers the eras {', '.join(MODES)}, not {options['era']}")
        elif arg == "--timeout":
            try:
                options["timeout"] = float(value())
            except ValueError:
                fail_usage("--timeout needs a number of seconds")
            if options["timeout"] <= 0:
                fail_usage("--timeout needs a positive number of seconds")
        elif arg == "--script":
            text = value()
            try:
                if text.startswith("@"):
                    with open(text[1:], encoding="utf-8") as f:
                        text = f.read()
                options["script"] = json.loads(text)
            except (OSError, ValueError) as e:
                fail_usage(f"--script: {e}")
            if not isinstance(options["script"], list):
                fail_usage("--script must be a JSON array of operations")
        elif arg == "--url":
            options["url"] = value()
        elif arg == "--header":
            header = value()
            name, colon, rest = header.partition(":")
            if not colon or not name.strip():
                fail_usage(f"--header needs 'Name: value', not {header}")
            options["headers"][name.strip()] = rest.strip()
        elif arg == "--stdio":
            options["stdio"] = argv[i + 1:]
            if not options["stdio"]:
                fail_usage("--stdio needs a command")
            break
        else:
            fail_usage(f"unknown argument {arg}")
        i += 1
    if (options["url"] is None) == (options["stdio"] is None):
        fail_usage("give exactly one of --url and --stdio")
    if options["stdio"] is not None and options["headers"]:
        fail_usage("--header goes with --url")
    return options


def leaf(error):
    """The first real error inside the exception groups that anyio's task groups wrap errors in."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def error_data(error):
    error = leaf(error)
    data = {"message": str(error) or type(error).__name__}
    code = getattr(error, "code", None)
    if isinstance(code, (int, str)):
        data["code"] = code
    return data


def texts(content):
    return [c.text for c in content or [] if getattr(c, "type", None) == "text"]


async def all_pages(list_page, items_of):
    items, cursor = [], None
    for _ in range(100):
        result = await list_page(cursor)
        items.extend(items_of(result))
        cursor = result.next_cursor
        if cursor is None:
            return items
    raise RuntimeError("more than 100 pages")


async def run_step(client, step, entry):
    op = step.get("op")
    if op == "tools":
        tools = await all_pages(lambda c: client.list_tools(cursor=c), lambda r: r.tools)
        entry["tools"] = [t.name for t in tools]
        entry["ok"] = True
    elif op == "call":
        result = await client.call_tool(step["name"], step.get("arguments") or {})
        entry["isError"] = bool(result.is_error)
        entry["text"] = texts(result.content)
        if result.structured_content is not None:
            entry["structuredContent"] = result.structured_content
        entry["ok"] = not entry["isError"]
    elif op == "read":
        resources = await all_pages(lambda c: client.list_resources(cursor=c), lambda r: r.resources)
        entry["resources"] = [str(r.uri) for r in resources]
        entry["listed"] = step["uri"] in entry["resources"]
        result = await client.read_resource(step["uri"])
        contents = []
        for c in result.contents:
            item = {"uri": str(c.uri), "mimeType": c.mime_type}
            if getattr(c, "text", None) is not None:
                item["text"] = c.text
            else:
                item["blobLength"] = len(getattr(c, "blob", "") or "")
            contents.append(item)
        entry["contents"] = contents
        entry["ok"] = True
    elif op == "prompt":
        prompts = await all_pages(lambda c: client.list_prompts(cursor=c), lambda r: r.prompts)
        entry["prompts"] = [p.name for p in prompts]
        entry["listed"] = step["name"] in entry["prompts"]
        result = await client.get_prompt(step["name"], step.get("arguments") or {})
        entry["messages"] = [
            {"role": m.role, "text": m.content.text} if m.content.type == "text" else {"role": m.role, "type": m.content.type}
            for m in result.messages]
        entry["ok"] = True
    else:
        entry["error"] = {"message": f"unknown operation {json.dumps(op)}"}


def target(options):
    if options["url"] is not None:
        # Headers go on the HTTP client the SDK's transport is given; the SDK's own default timeouts otherwise
        # (30 s, and 300 s for reading a stream), with the probe's bound above them.
        http = httpx2.AsyncClient(headers=options["headers"], timeout=httpx2.Timeout(30.0, read=300.0))
        return http, streamable_http_client(options["url"], http_client=http)
    command = options["stdio"]
    return None, StdioServerParameters(command=command[0], args=command[1:])


async def probe(options, report):
    http, server = target(options)
    try:
        async with Client(server, mode=MODES[options["era"]], read_timeout_seconds=options["timeout"]) as client:
            report["protocolVersion"] = client.protocol_version
            info = client.server_info
            report["serverInfo"] = None if info is None else {"name": info.name, "version": info.version}
            all_ok = True
            for step in options["script"]:
                entry = dict(step, ok=False)
                report["operations"].append(entry)
                try:
                    await run_step(client, step, entry)
                except Exception as e:  # an operation's failure is data; the others still run
                    print(f"{NAME}: {step.get('op')} failed:", file=sys.stderr)
                    traceback.print_exc(file=sys.stderr)
                    entry["error"] = error_data(e)
                all_ok = all_ok and entry["ok"]
            report["ok"] = all_ok
    finally:
        if http is not None:
            await http.aclose()


printed = threading.Lock()
# stdout is the report's alone: whatever else prints there goes to stderr.
REPORT = sys.stdout
sys.stdout = sys.stderr


def emit(report):
    """Prints the report once, whichever comes first: the end of the run or the time bound."""
    if printed.acquire(blocking=False):
        REPORT.write(json.dumps(report) + "\n")
        REPORT.flush()
        return True
    return False


def main():
    options = parse_args(sys.argv[1:])
    report = {"probe": NAME, "sdk": SDK, "era": options["era"],
              "target": options["url"] if options["url"] is not None else " ".join(options["stdio"]),
              "protocolVersion": None, "serverInfo": None, "ok": False, "error": None, "operations": []}
    def timeout():
        report["ok"] = False
        report["error"] = report["error"] or {
            "message": f"timeout: the probe did not finish within {options['timeout']:g} s"}
        print(f"{NAME}: {report['error']['message']}", file=sys.stderr)
        if emit(report):
            # The event loop may be stuck in the SDK: leave at once (a stdio server sees EOF on its stdin).
            os._exit(1)

    watchdog = threading.Timer(options["timeout"], timeout)
    watchdog.daemon = True
    watchdog.start()
    try:
        anyio.run(probe, options, report)
    except BaseException as e:  # the connection (or its close) failed: the report says how
        print(f"{NAME}: failed:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        report["ok"] = False
        report["error"] = error_data(e)
    watchdog.cancel()
    if emit(report):
        sys.exit(0 if report["ok"] else 1)
    os._exit(1)


if __name__ == "__main__":
    main()
