// The official TypeScript SDK v1's client (@modelcontextprotocol/sdk, pinned in package.json; the 2025 handshake)
// running the bench workload (ts-workload.mjs, the same as the Java clients' mcp.bench.ClientRun).
// Usage: node --expose-gc ts-client.mjs [workload options] -- SERVER COMMAND...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { run } from "./ts-workload.mjs";

await run("ts-sdk", (server) => {
  const client = new Client({ name: "bench", version: "1" });
  const transport = new StdioClientTransport({ command: server[0], args: server.slice(1), stderr: "ignore" });
  return {
    connect: () => client.connect(transport),
    // Page by page, as the v1 client leaves pagination to its caller.
    listTools: async () => {
      let count = 0;
      let cursor;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        count += page.tools.length;
        cursor = page.nextCursor;
      } while (cursor !== undefined && cursor !== null);
      return count;
    },
    echo: async (message) => {
      const res = await client.callTool({ name: "echo", arguments: { message } });
      const first = res.content && res.content[0];
      return first && first.type === "text" ? first.text : null;
    },
    close: () => client.close(),
    protocolVersion: () => undefined, // the v1 client has no getter for the version agreed
  };
});
