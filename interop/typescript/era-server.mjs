// An MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0) for mcp-host's interoperability
// tests of both eras; the twin of interop/python/era_server.py.
//
// stdio by default (serveStdio: the opening message picks the era, 2026-07-28 on server/discover, 2025 on
// initialize); `era-server.mjs http PORT [KEEPALIVE_MS]` serves Streamable HTTP on 127.0.0.1:PORT/mcp through
// createMcpHandler (stateless: one server instance per request, 2025 requests by its stateless legacy fallback),
// with an SSE keep-alive comment every KEEPALIVE_MS on open streams (the SDK's default, 15 s, when not given).
// `--modern-only` (anywhere) serves 2026-07-28 alone: the SDK answers a 2025 opening with
// UnsupportedProtocolVersionError (-32022) naming the versions it supports (legacy: 'reject').
// Tools: add (plain), route (arguments mirrored into Mcp-Param-* headers over HTTP), weigh (an x-mcp-header the
// revision forbids), greet (asks the user's name: it returns inputRequired, which the 2026-07-28 client answers
// in a retry and which the SDK's legacy shim turns into an elicitation/create request on a 2025 connection), grow
// (adds the tool 'extra' and tells the client that the tool list changed).
import { createServer } from 'node:http';
import { acceptedContent, createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { localhostHostValidation, toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const Name = z.object({ name: z.string() });

/** Set once grow was called: every server instance made afterwards has the tool 'extra'. */
let grown = false;

function addExtra(server) {
    server.registerTool('extra', { description: 'A tool that exists once grow was called.' },
        async () => ({ content: [{ type: 'text', text: 'extra' }] }));
}

/**
 * The same factory serves both eras and both transports. `toolsChanged` tells the client of a change: over stdio
 * the connected instance's own notification (the SDK puts it on the subscriptions/listen stream in 2026-07-28),
 * over HTTP the handler's event bus, since each request has its own short-lived instance.
 */
function factory(toolsChanged) {
    return () => {
        const server = new McpServer({ name: 'era-server', version: '1.0.0' });
        server.registerTool('add', {
            description: 'Adds two integers.',
            inputSchema: z.object({ a: z.number().int(), b: z.number().int() })
        }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
        server.registerTool('greet', { description: 'Greets the user by the name it asks for.' }, async (ctx) => {
            const who = acceptedContent(ctx.mcpReq.inputResponses, 'who', Name);
            if (who === undefined) {
                return inputRequired({ inputRequests: { who: inputRequired.elicit({ message: 'Your name?', requestedSchema: Name }) } });
            }
            return { content: [{ type: 'text', text: `hello ${who.name}` }] };
        });
        // Over HTTP in 2026-07-28 the client mirrors these arguments into Mcp-Param-* headers, and the SDK checks
        // each header against the body before the handler runs (400, -32020 when one is missing or differs).
        server.registerTool('route', {
            description: 'Echoes the arguments that the client also sends as headers.',
            inputSchema: z.object({
                region: z.string().meta({ 'x-mcp-header': 'Region' }),
                count: z.number().int().optional().meta({ 'x-mcp-header': 'Count' }),
                dry: z.boolean().optional().meta({ 'x-mcp-header': 'Dry-Run' })
            })
        }, async ({ region, count, dry }) => ({ content: [{ type: 'text', text: JSON.stringify([region, count ?? null, dry ?? null]) }] }));
        // x-mcp-header on a number is not allowed by the revision: a client over HTTP must leave this tool out.
        server.registerTool('weigh', {
            description: 'A tool whose x-mcp-header is on a number property.',
            inputSchema: z.object({ weight: z.number().meta({ 'x-mcp-header': 'Weight' }) })
        }, async ({ weight }) => ({ content: [{ type: 'text', text: String(weight) }] }));
        server.registerTool('grow', { description: "Adds the tool 'extra' and notifies the client that the tool list changed." },
            async () => {
                if (!grown) {
                    grown = true;
                    toolsChanged(server);
                }
                return { content: [{ type: 'text', text: 'grown' }] };
            });
        if (grown) {
            addExtra(server);
        }
        return server;
    };
}

const report = (error) => process.stderr.write(`era-server: ${error.stack ?? error}\n`);

const modernOnly = process.argv.includes('--modern-only');
const args = process.argv.slice(2).filter((arg) => arg !== '--modern-only');
const legacy = modernOnly ? { legacy: 'reject' } : {};

if (args[0] === 'http') {
    const port = Number(args[1]);
    const keepAliveMs = args[2] === undefined ? undefined : Number(args[2]);
    if (!Number.isInteger(port) || port <= 0 || (keepAliveMs !== undefined && !(Number.isInteger(keepAliveMs) && keepAliveMs > 0))) {
        process.stderr.write('usage: era-server.mjs [--modern-only] [http PORT [KEEPALIVE_MS]]\n');
        process.exit(2);
    }
    let handler;
    handler = createMcpHandler(factory(() => handler.notify.toolsChanged()), { onerror: report, keepAliveMs, ...legacy });
    const node = toNodeHandler(handler, { onerror: report });
    const validHost = localhostHostValidation();
    const http = createServer((req, res) => {
        if (!validHost(req, res)) {
            return;
        }
        if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
            res.writeHead(404).end();
            return;
        }
        node(req, res);
    });
    http.listen(port, '127.0.0.1', () => process.stderr.write(`era-server listening on 127.0.0.1:${port}/mcp\n`));
    const stop = () => {
        handler.close().finally(() => http.close(() => process.exit(0)));
        http.closeAllConnections();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
} else {
    // On stdio the instance of the connection stays: the tool is added to it, which makes it notify its client.
    serveStdio(factory((server) => addExtra(server)), { onerror: report, ...legacy });
}
