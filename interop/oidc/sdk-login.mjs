// The TypeScript SDK v1's authorization-code flow (@modelcontextprotocol/sdk 1.32.2) against an OAuth-protected MCP
// server, driven headlessly: the SDK meets the 401, discovers the metadata and the authorization server, and hands its
// OAuthClientProvider the authorization URL (PKCE S256, the resource indicator, the challenged scope). Where an
// application opens a browser, this provider plays the person: it follows the provider's redirects with a cookie
// jar, fills in oidc-provider's development login form (any login name) and its consent form, and takes the code
// from the redirect to the client's redirect URI. Then, as the SDK documents, transport.finishAuth(code) exchanges
// it, and a new connection lists and calls a tool.
//
// Usage: node sdk-login.mjs SERVER_URL LOGIN TOOL [ARGUMENTS_JSON]
// Prints one JSON line: {"ok": true, "result": {...}, "scope": "...", "claims": {sub, aud, groups, client_id},
// "requests": [...]} or {"ok": false, "error": "...", "requests": [...]}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const [serverUrl, login, tool, args = '{}'] = process.argv.slice(2);
const REDIRECT = 'http://127.0.0.1:1/callback';
const requests = [];
const recordingFetch = async (url, init) => {
    const response = await fetch(url, init);
    requests.push(`${init?.method ?? 'GET'} ${url} ${response.status}`);
    return response;
};

/** The person at the browser: follows redirects by hand (cookies kept), logs in, consents, returns the code. */
async function browse(authorizationUrl) {
    const cookies = new Map();
    let url = authorizationUrl.toString();
    let form;
    for (let step = 0; step < 20; step++) {
        const init = { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } };
        if (form) {
            init.method = 'POST';
            init.headers['content-type'] = 'application/x-www-form-urlencoded';
            init.body = new URLSearchParams(form).toString();
            form = undefined;
        }
        const response = await fetch(url, init);
        requests.push(`${init.method ?? 'GET'} ${url.split('?')[0]} ${response.status}`);
        for (const line of response.headers.getSetCookie()) {
            const [pair] = line.split(';');
            const at = pair.indexOf('=');
            cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1));
        }
        const location = response.headers.get('location');
        if (location) {
            url = new URL(location, url).toString();
            if (url.startsWith(REDIRECT)) {
                const params = new URL(url).searchParams;
                if (!params.get('code')) {
                    throw new Error(`no code in the redirect: ${params.get('error')} ${params.get('error_description')}`);
                }
                return params.get('code');
            }
            continue;
        }
        const page = await response.text();
        if (response.status !== 200) {
            throw new Error(`HTTP ${response.status} at ${url}: ${page.slice(0, 300)}`);
        }
        // oidc-provider's development pages: a login form, then a consent form, each posting to the interaction.
        const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
        const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
        if (!prompt || !action) {
            throw new Error(`an unexpected page at ${url}: ${page.slice(0, 300)}`);
        }
        url = new URL(action, url).toString();
        form = prompt === 'login' ? { prompt, login, password: 'any' } : { prompt };
    }
    throw new Error('too many redirects');
}

let code;
const provider = {
    _tokens: undefined,
    _verifier: undefined,
    get redirectUrl() {
        return REDIRECT;
    },
    get clientMetadata() {
        return {
            client_name: 'mcp-host-oauth-login-probe',
            redirect_uris: [REDIRECT],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
        };
    },
    // Registered with the provider beforehand (no dynamic registration).
    clientInformation: () => ({ client_id: 'browser-cli' }),
    tokens() {
        return this._tokens;
    },
    saveTokens(tokens) {
        this._tokens = tokens;
    },
    async redirectToAuthorization(url) {
        code = await browse(url);
    },
    saveCodeVerifier(verifier) {
        this._verifier = verifier;
    },
    codeVerifier() {
        return this._verifier;
    },
};

const timer = setTimeout(() => {
    console.log(JSON.stringify({ ok: false, error: 'timed out after 60 s', requests }));
    process.exit(1);
}, 60_000);
try {
    const first = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: recordingFetch });
    try {
        await new Client({ name: 'mcp-host-oauth-login-probe', version: '1.0.0' }).connect(first);
        throw new Error('the server let the client in without a token');
    } catch (error) {
        if (!(error instanceof UnauthorizedError) || code === undefined) {
            throw error;
        }
    }
    await first.finishAuth(code);
    const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: recordingFetch });
    const client = new Client({ name: 'mcp-host-oauth-login-probe', version: '1.0.0' });
    await client.connect(transport);
    const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
    // What the token says (its payload, not its signature): whose it is, for which resource.
    const payload = JSON.parse(Buffer.from(provider.tokens().access_token.split('.')[1], 'base64url').toString());
    const claims = { sub: payload.sub, aud: payload.aud, groups: payload.groups, client_id: payload.client_id };
    console.log(JSON.stringify({ ok: true, result, scope: provider.tokens()?.scope, claims, requests }));
    await client.close();
    clearTimeout(timer);
} catch (error) {
    console.log(JSON.stringify({ ok: false, error: String(error?.stack ?? error), requests }));
    clearTimeout(timer);
    process.exit(1);
}
