#!/bin/sh
# Runs a stdio MCP server with a copy of everything its client writes to it in FILE (made anew): the record of
# what was sent, for tests that must see what mcp-host's client put on the wire, taken outside mcp-host.
# Usage: stdin-log.sh FILE COMMAND [ARG...]. The server's stdout and stderr are the wrapper's; stdin's end (the
# client closing it) reaches the server through tee.
set -eu
if [ "$#" -lt 2 ]; then
  echo "usage: stdin-log.sh FILE COMMAND [ARG...]" >&2
  exit 2
fi
log=$1
shift
tee "$log" | "$@"
