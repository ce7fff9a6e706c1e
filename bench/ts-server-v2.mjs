// A server of the 2026-07-28 era for the bench's modern part (BENCHMARKS.md): the official TypeScript SDK v2
// (@modelcontextprotocol/server, pinned in package.json) serving stateless over stdio with serveStdio.
// legacy: 'reject' answers an `initialize` with the unsupported-protocol-version error, so a client that does
// not speak 2026-07-28 fails here instead of being measured on the 2025 handshake.
// Tools: `echo` (returns its `message` argument as text, as the testkit server's does) and N generated tools
// `tool_<n>` (one string argument each), all in one tools/list page (McpServer does not paginate).
// Usage: node ts-server-v2.mjs [--tools N]
import { McpServer, fromJsonSchema } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const argv = process.argv.slice(2);
const toolsAt = argv.indexOf("--tools");
const generated = toolsAt >= 0 ? Number(argv[toolsAt + 1]) : 100;
if (!Number.isInteger(generated) || generated < 0) {
  process.stderr.write("usage: node ts-server-v2.mjs [--tools N]\n");
  process.exit(2);
}

const stringArgument = (name, description) =>
  fromJsonSchema({
    type: "object",
    properties: { [name]: { type: "string", description } },
    required: [name],
  });

serveStdio(
  () => {
    const server = new McpServer({ name: "bench-ts-v2", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.registerTool(
      "echo",
      { description: "Returns its message.", inputSchema: stringArgument("message", "The text to return.") },
      async ({ message }) => ({ content: [{ type: "text", text: message }] }),
    );
    for (let n = 0; n < generated; n++) {
      server.registerTool(
        `tool_${n}`,
        { description: `Generated tool number ${n}.`, inputSchema: stringArgument("value", "Any text.") },
        async ({ value }) => ({ content: [{ type: "text", text: `tool_${n}: ${value}` }] }),
      );
    }
    return server;
  },
  { legacy: "reject", onerror: (e) => process.stderr.write(`bench ts-server-v2: ${e}\n`) },
);
