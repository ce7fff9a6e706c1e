// A real MCP client for mcp-host's interoperability tests: the TypeScript SDK v1 (@modelcontextprotocol/sdk 1.32.2,
// pinned in interop/package.json), used as its documentation shows. It speaks the 2025 handshake only (its latest
// version is 2025-11-25), so its one era is 2025. Command line, script and report: probe-common.mjs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { allPages, runProbe } from './probe-common.mjs';

await runProbe({
    name: 'ts-sdk-v1',
    sdk: '@modelcontextprotocol/sdk 1.32.2',
    eras: ['2025'],
    connect: async (options) => {
        const transport = options.url !== undefined
            ? new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers: options.headers } })
            : new StdioClientTransport({ command: options.stdio[0], args: options.stdio.slice(1), stderr: 'inherit' });
        // v1's Client keeps the negotiated version to itself: it hands it to the transport's optional
        // setProtocolVersion (the HTTP transport has one, for its header; the stdio transport has none), so the probe
        // listens there.
        let negotiated;
        const forward = transport.setProtocolVersion?.bind(transport);
        transport.setProtocolVersion = (version) => {
            negotiated = version;
            forward?.(version);
        };
        const client = new Client({ name: 'mcp-host-probe-ts-v1', version: '1.0.0' });
        await client.connect(transport);
        return {
            protocolVersion: () => negotiated,
            serverInfo: () => client.getServerVersion(),
            listTools: () => allPages(async (cursor) => {
                const r = await client.listTools(cursor === undefined ? undefined : { cursor });
                return { items: r.tools, nextCursor: r.nextCursor };
            }),
            callTool: (name, args) => client.callTool({ name, arguments: args }),
            listResources: () => allPages(async (cursor) => {
                const r = await client.listResources(cursor === undefined ? undefined : { cursor });
                return { items: r.resources, nextCursor: r.nextCursor };
            }),
            readResource: (uri) => client.readResource({ uri }),
            listPrompts: () => allPages(async (cursor) => {
                const r = await client.listPrompts(cursor === undefined ? undefined : { cursor });
                return { items: r.prompts, nextCursor: r.nextCursor };
            }),
            getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
            close: () => client.close()
        };
    }
});
