// The official TypeScript SDK v2's client (@modelcontextprotocol/client, pinned in package.json) on the
// 2026-07-28 revision, running the bench workload (ts-workload.mjs, the same as the Java clients'
// mcp.bench.ClientRun). The era is pinned (versionNegotiation { pin: "2026-07-28" }): connect() sends one
// server/discover and every request carries the _meta envelope. ("auto" would probe on a sibling server process
// spawned for the purpose, one more spawn per connect, and the bench's modern server speaks only 2026-07-28.)
// Usage: node --expose-gc ts-client-v2.mjs [workload options] -- SERVER COMMAND...
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { run } from "./ts-workload.mjs";

await run("ts-sdk-v2", (server) => {
  const client = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new StdioClientTransport({ command: server[0], args: server.slice(1), stderr: "ignore" });
  return {
    connect: () => client.connect(transport),
    // Without a cursor the v2 client walks every page itself; "refresh" asks the server each time (never its
    // response cache), as the other clients do.
    listTools: async () => (await client.listTools(undefined, { cacheMode: "refresh" })).tools.length,
    echo: async (message) => {
      const res = await client.callTool({ name: "echo", arguments: { message } });
      const first = res.content && res.content[0];
      return first && first.type === "text" ? first.text : null;
    },
    close: () => client.close(),
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
  };
});
