// The TypeScript SDK's own OAuth flow against an OAuth-protected MCP server: @modelcontextprotocol/sdk 1.32.2's
// StreamableHTTPClientTransport with its ClientCredentialsProvider (auth-extensions), used as documented. The SDK
// meets the server's 401, reads the protected resource metadata it names (RFC 9728), discovers the authorization
// server, asks it for a token for that resource (RFC 8707) and the challenged scope, and retries with it.
//
// The SDK's client-credentials path asks for the provider's own `scope` option (its fetchToken reads
// clientMetadata.scope, not the scope the server challenged with), so the scope to ask for is an argument here.
//
// Usage: node sdk-client.mjs SERVER_URL ISSUER CLIENT_ID CLIENT_SECRET SCOPE TOOL [ARGUMENTS_JSON]
// Prints one JSON line: {"ok": true, "tools": [...], "result": {...}, "scope": "...", "requests": [...]} or
// {"ok": false, "error": "..."}; "requests" lists the URLs the SDK fetched, so the discovery can be checked.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

const [serverUrl, issuer, clientId, clientSecret, scope, tool, args = '{}'] = process.argv.slice(2);
const requests = [];
const recordingFetch = async (url, init) => {
    const response = await fetch(url, init);
    requests.push(`${init?.method ?? 'GET'} ${url} ${response.status}`);
    return response;
};
const provider = new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer, scope });
const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: recordingFetch });
const client = new Client({ name: 'mcp-host-oauth-probe', version: '1.0.0' });
const timer = setTimeout(() => {
    console.log(JSON.stringify({ ok: false, error: 'timed out after 60 s', requests }));
    process.exit(1);
}, 60_000);
try {
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
    console.log(JSON.stringify({ ok: true, tools, result, scope: provider.tokens()?.scope, requests }));
    await client.close();
    clearTimeout(timer);
} catch (error) {
    console.log(JSON.stringify({ ok: false, error: String(error?.stack ?? error), requests }));
    clearTimeout(timer);
    process.exit(1);
}
