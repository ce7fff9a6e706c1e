// A real MCP client for mcp-host's interoperability tests: the TypeScript SDK v2 (@modelcontextprotocol/client 2.4.0,
// pinned in interop/package.json), used as its documentation shows. Its eras are its versionNegotiation modes:
// auto (server/discover first, the 2025 handshake as fallback), 2025 (mode 'legacy': the handshake only) and 2026
// (pinned to 2026-07-28, no fallback). Command line, script and report: probe-common.mjs.
//
// In auto mode over stdio the SDK probes on a short-lived sibling of the server process (same command, stderr
// discarded) and then starts the server it talks to: one stdio run spawns the server twice.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { runProbe } from './probe-common.mjs';

const MODES = { auto: 'auto', 2025: 'legacy', 2026: { pin: '2026-07-28' } };

await runProbe({
    name: 'ts-sdk-v2',
    sdk: '@modelcontextprotocol/client 2.4.0',
    eras: ['auto', '2025', '2026'],
    connect: async (options) => {
        const transport = options.url !== undefined
            ? new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers: options.headers } })
            : new StdioClientTransport({ command: options.stdio[0], args: options.stdio.slice(1), stderr: 'inherit' });
        const client = new Client({ name: 'mcp-host-probe-ts-v2', version: '1.0.0' },
            { versionNegotiation: { mode: MODES[options.era] } });
        await client.connect(transport);
        // Called without a cursor, each list walks every page itself.
        return {
            protocolVersion: () => client.getNegotiatedProtocolVersion(),
            serverInfo: () => client.getServerVersion(),
            listTools: async () => (await client.listTools()).tools,
            callTool: (name, args) => client.callTool({ name, arguments: args }),
            listResources: async () => (await client.listResources()).resources,
            readResource: (uri) => client.readResource({ uri }),
            listPrompts: async () => (await client.listPrompts()).prompts,
            getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
            close: () => client.close()
        };
    }
});
