// The TypeScript SDK's own OAuth flow against an OAuth-protected MCP server, in both of its majors:
// v1 (@modelcontextprotocol/sdk 1.32.2) and v2 (@modelcontextprotocol/client 2.4.0), each with its
// StreamableHTTPClientTransport and its ClientCredentialsProvider, used as documented. The SDK meets the server's 401,
// reads the protected resource metadata it names (RFC 9728), discovers the authorization server, asks it for a token
// for that resource (RFC 8707) and retries with it.
//
// Both SDKs' client-credentials path asks for the provider's own `scope` option (their fetchToken reads
// clientMetadata.scope, not the scope the server challenged with), so the scope to ask for is an argument here.
//
// Usage: node sdk-client.mjs v1|v2 SERVER_URL ISSUER CLIENT_ID CLIENT_SECRET SCOPE TOOL [ARGUMENTS_JSON]
// Prints one JSON line: {"ok": true, "sdk": ..., "tools": [...], "result": {...}, "scope": "...", "requests": [...]}
// or {"ok": false, "error": "...", "requests": [...]}; "requests" lists what the SDK fetched, with the statuses, so
// that the discovery can be checked.
const [major, serverUrl, issuer, clientId, clientSecret, scope, tool, args = '{}'] = process.argv.slice(2);
const sdk = major === 'v2'
    ? await import('@modelcontextprotocol/client')
    : {
        ...(await import('@modelcontextprotocol/sdk/client/index.js')),
        ...(await import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
        ...(await import('@modelcontextprotocol/sdk/client/auth-extensions.js')),
    };
const requests = [];
const recordingFetch = async (url, init) => {
    const response = await fetch(url, init);
    requests.push(`${init?.method ?? 'GET'} ${url} ${response.status}`);
    return response;
};
const provider = new sdk.ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer, scope });
const transport = new sdk.StreamableHTTPClientTransport(new URL(serverUrl), {
    authProvider: provider,
    fetch: recordingFetch,
});
const client = new sdk.Client({ name: `mcp-host-oauth-probe-${major}`, version: '1.0.0' });
const timer = setTimeout(() => {
    console.log(JSON.stringify({ ok: false, sdk: major, error: 'timed out after 60 s', requests }));
    process.exit(1);
}, 60_000);
try {
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
    const tokens = await provider.tokens();
    console.log(JSON.stringify({ ok: true, sdk: major, tools, result, scope: tokens?.scope, requests }));
    await client.close();
    clearTimeout(timer);
} catch (error) {
    console.log(JSON.stringify({ ok: false, sdk: major, error: String(error?.stack ?? error), requests }));
    clearTimeout(timer);
    process.exit(1);
}
