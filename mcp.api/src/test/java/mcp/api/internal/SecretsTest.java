package mcp.api.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import mcp.api.HttpServerConfig;
import mcp.api.StdioServerConfig;
import org.junit.jupiter.api.Test;

/** The masking rule of {@link Secrets}: what is hidden, and what must stay readable. */
class SecretsTest {

    @Test
    void credentialNamesAreRecognisedByTheirWords() {
        for (String name : List.of("--token", "--api-key", "--apiKey", "--API_KEY", "exaApiKey", "EXAAPIKEY", "apikey",
                "key", "--key", "access_token", "GITHUB_PERSONAL_ACCESS_TOKEN", "--auth", "--auth-token", "authToken",
                "--client-secret", "--password", "--db-passwd", "pwd", "Authorization", "X-Api-Key", "Cookie",
                "--private-key", "X-Amz-Signature", "X-Amz-Credential", "sig", "--bearer", "APIKey", "refresh_token")) {
            assertTrue(Secrets.isSecretName(name), name);
        }
        for (String name : List.of("--model", "--max-tokens", "tokens", "--author", "--keymap", "--monkey", "--hotkey",
                "--no-auth", "--port", "--verbose", "-k", "-y", "page", "Content-Type", "--stdio", "--oauth", "url",
                "--keyboard", "--session-timeout", "")) {
            assertFalse(Secrets.isSecretName(name), name);
        }
    }

    @Test
    void optionValuesAreHiddenInBothForms() {
        assertEquals(List.of("--api-key=<hidden>", "--token", "<hidden>", "--apiKey", "<hidden>", "-token=<hidden>"),
                Secrets.maskArgs(List.of("--api-key=S1", "--token", "S2", "--apiKey", "S3", "-token=S4")));
        assertEquals(List.of("OPENAI_API_KEY=<hidden>", "exaApiKey=<hidden>", "--token=Bearer <hidden>"),
                Secrets.maskArgs(List.of("OPENAI_API_KEY=sk-1", "exaApiKey=abc", "--token=Bearer xyz")));
    }

    @Test
    void whatIsNotACredentialStaysAsIs() {
        List<String> args = List.of("-y", "@modelcontextprotocol/server-everything", "--model", "gpt-4o", "--max-tokens",
                "4096", "--port=8080", "--no-auth", "server.js", "--verbose", "-k", "value", "PATH=/usr/bin", "a=b",
                "https://example.com/mcp?page=2&q=token", "--keymap", "vim", "--author=me", "Content-Type: text/plain",
                "--token", "--model", "x", "--token=");
        assertEquals(args, Secrets.maskArgs(args));
    }

    @Test
    void theValueAfterASecretOptionIsHiddenOnlyWhenItIsNotAnOption() {
        assertEquals(List.of("--token", "--model", "gpt"), Secrets.maskArgs(List.of("--token", "--model", "gpt")));
        assertEquals(List.of("--api-key", "<hidden>", "run"), Secrets.maskArgs(List.of("--api-key", "s", "run")));
    }

    @Test
    void variableReferencesAreShownSinceTheyHoldNoSecret() {
        List<String> args = List.of("--api-key=${EXA_API_KEY}", "--token", "$TOKEN", "TOKEN={env:TOKEN}",
                "https://h/mcp?key=${KEY}", "Authorization: ${AUTH}", "Bearer {{token}}");
        assertEquals(args, Secrets.maskArgs(args));
    }

    @Test
    void headersGivenAsArgumentsAndBareSchemesAreHidden() {
        assertEquals(List.of("--header", "Authorization: Bearer <hidden>", "X-Api-Key:<hidden>", "Bearer <hidden>",
                        "Basic <hidden>"),
                Secrets.maskArgs(List.of("--header", "Authorization: Bearer T1", "X-Api-Key:T2", "Bearer T3",
                        "Basic dXNlcjpwYXNz")));
    }

    @Test
    void urlsLoseTheirUserInfoAndSecretParameters() {
        assertEquals("https://<hidden>@db.example/x?access_token=<hidden>&page=2",
                Secrets.maskUrl("https://user:pa55@db.example/x?access_token=qwerty&page=2"));
        assertEquals("https://mcp.exa.ai/mcp?exaApiKey=<hidden>",
                Secrets.maskUrl("https://mcp.exa.ai/mcp?exaApiKey=abc-123"));
        assertEquals("http://127.0.0.1:9/mcp?key=<hidden>&token=<hidden>&secret=<hidden>&api_key=<hidden>&x=1#frag",
                Secrets.maskUrl("http://127.0.0.1:9/mcp?key=a&token=b&secret=c&api_key=d&x=1#frag"));
        assertEquals("https://h/cb#access_token=<hidden>&state=s", Secrets.maskUrl("https://h/cb#access_token=t&state=s"));
        assertEquals("https://h/mcp?page=2&q=", Secrets.maskUrl("https://h/mcp?page=2&q="));
        assertEquals("https://h/mcp", Secrets.maskUrl("https://h/mcp"));
        assertEquals(List.of("mcp-remote", "--url=https://h/mcp?apiKey=<hidden>", "https://<hidden>@h/"),
                Secrets.maskArgs(List.of("mcp-remote", "--url=https://h/mcp?apiKey=k", "https://tok@h/")));
    }

    @Test
    void theCommandLineIsMaskedAndTheInputListIsUntouched() {
        List<String> args = new ArrayList<>(List.of("--token", "S2", "--api-key=S1"));
        List<String> before = List.copyOf(args);
        assertEquals("node --token <hidden> --api-key=<hidden>", Secrets.commandLine("node", args));
        assertEquals(before, args);
    }

    @Test
    void aReplacementCanStandForTheHiddenValue() {
        assertEquals(List.of("--token=#S1", "--key", "#S2", "https://h/?key=#S3"),
                Secrets.maskArgs(List.of("--token=S1", "--key", "S2", "https://h/?key=S3"), v -> "#" + v));
    }

    @Test
    void freeTextLosesSecretLookingValues() {
        String text = "node: bad option: --api-key=SECRET1 (also --token SECRET2, token=SECRET3, "
                + "GET https://u:SECRET4@h/x?exaApiKey=SECRET5&page=2, Authorization: Bearer SECRET6)";
        String masked = Secrets.maskText(text);
        for (String secret : List.of("SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6")) {
            assertFalse(masked.contains(secret), secret + " in " + masked);
        }
        assertTrue(masked.contains("--api-key=<hidden>") && masked.contains("--token <hidden>")
                && masked.contains("exaApiKey=<hidden>&page=2") && masked.contains("node: bad option"), masked);
        String plain = "Request timeout after 5000ms; exit code 3; stderr: --model gpt failed at key.js:3, max-tokens=10";
        assertEquals(plain, Secrets.maskText(plain));
    }

    @Test
    void configsShowMaskedArgumentsAndUrlsAndKeepTheRealValues() {
        StdioServerConfig stdio = StdioServerConfig.of("npx", List.of("server", "--api-key=S1", "--token", "S2"));
        assertTrue(stdio.toString().contains("args=[server, --api-key=<hidden>, --token, <hidden>]"), stdio.toString());
        assertEquals(List.of("server", "--api-key=S1", "--token", "S2"), stdio.args());
        HttpServerConfig http = HttpServerConfig.of("https://me:S3@h/mcp?exaApiKey=S4&page=2");
        assertFalse(http.toString().contains("S3") || http.toString().contains("S4"), http.toString());
        assertTrue(http.toString().contains("https://<hidden>@h/mcp?exaApiKey=<hidden>&page=2"), http.toString());
        assertEquals("https://me:S3@h/mcp?exaApiKey=S4&page=2", http.url());
    }
}
