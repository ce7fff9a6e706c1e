// A real OpenID provider for mcp-host's OAuth tests: oidc-provider (pinned in interop/package.json) on 127.0.0.1,
// issuing JWT access tokens (RFC 9068) for any resource indicator (RFC 8707) on 127.0.0.1 through the
// client-credentials grant and, for browser-cli, the authorization-code grant with PKCE.
//
// Usage: node provider.mjs PORT KEYS_FILE [--rotate]
//   KEYS_FILE holds the provider's private signing keys (a JSON array of JWKs); it is created with one new RSA key
//   when missing. --rotate makes a new key and signs with it from then on, keeping the old one published (as an
//   identity provider rotates): start the provider again on the same port with it.
// Clients (secret = "<id>-secret", client_secret_basic or _post):
//   alice-cli    scopes mcp:tools mcp:admin, groups ["dev"]
//   bob-cli      scopes mcp:tools,           groups ["ops"]
//   narrow-cli   scope  profile only (a token without mcp:tools)
//   short-cli    scopes mcp:tools, tokens that live 1 second (for expiry)
//   browser-cli  a public client (PKCE, no secret) of the authorization-code grant, redirect
//                http://127.0.0.1:1/callback; a person logs in through the provider's development login form
//                (devInteractions: any login name is an account; carol is in ["dev"]), then consents
// Prints "oidc-provider listening on http://127.0.0.1:PORT" once it accepts connections.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import Provider from 'oidc-provider';

const [portText, keysFile, ...flags] = process.argv.slice(2);
if (!portText || !keysFile) {
    console.error('usage: node provider.mjs PORT KEYS_FILE [--rotate]');
    process.exit(2);
}
const port = Number(portText);
const issuer = `http://127.0.0.1:${port}`;

function newKey() {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

let keys = existsSync(keysFile) ? JSON.parse(readFileSync(keysFile, 'utf8')) : [newKey()];
if (flags.includes('--rotate')) {
    keys = [newKey(), ...keys];
}
writeFileSync(keysFile, JSON.stringify(keys), { mode: 0o600 });
// The first key signs; every key stays published, so tokens signed before a rotation still verify.
const signingKid = keys[0].kid;

const groups = { 'alice-cli': ['dev'], 'bob-cli': ['ops'], carol: ['dev'] };
const client = (id, scope) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    scope,
    token_endpoint_auth_method: 'client_secret_basic',
});

const provider = new Provider(issuer, {
    clients: [
        client('alice-cli', 'mcp:tools mcp:admin'),
        client('bob-cli', 'mcp:tools'),
        client('narrow-cli', 'profile'),
        client('short-cli', 'mcp:tools'),
        { ...client('post-cli', 'mcp:tools'), token_endpoint_auth_method: 'client_secret_post' },
        {
            client_id: 'browser-cli',
            application_type: 'native',
            grant_types: ['authorization_code'],
            response_types: ['code'],
            redirect_uris: ['http://127.0.0.1:1/callback'],
            scope: 'openid mcp:tools',
            token_endpoint_auth_method: 'none',
        },
    ],
    findAccount: (ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    jwks: { keys },
    scopes: ['openid', 'profile', 'mcp:tools', 'mcp:admin'],
    features: {
        // The provider's own minimal login and consent pages, which a test drives as a browser would.
        devInteractions: { enabled: true },
        clientCredentials: { enabled: true },
        introspection: { enabled: false },
        resourceIndicators: {
            enabled: true,
            useGrantedResource: () => true,
            getResourceServerInfo: (ctx, resourceIndicator, oidcClient) => {
                if (!resourceIndicator.startsWith('http://127.0.0.1:')) {
                    throw new Error('this provider only issues tokens for resources on 127.0.0.1');
                }
                return {
                    scope: 'profile mcp:tools mcp:admin',
                    audience: resourceIndicator,
                    accessTokenTTL: oidcClient.clientId === 'short-cli' ? 1 : 600,
                    accessTokenFormat: 'jwt',
                    jwt: { sign: { alg: 'RS256', kid: signingKid } },
                };
            },
        },
    },
    extraTokenClaims: (ctx, token) => {
        const clientGroups = groups[token.accountId ?? token.clientId];
        return clientGroups ? { groups: clientGroups } : undefined;
    },
    // Only the client-credentials grant is used; the cookies' keys are made per run.
    cookies: { keys: [randomUUID()] },
});
provider.on('server_error', (ctx, error) => console.error('oidc-provider server_error:', error));

const server = http.createServer(provider.callback());
server.listen(port, '127.0.0.1', () => {
    console.log(`oidc-provider listening on ${issuer} (signing key ${signingKid})`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
