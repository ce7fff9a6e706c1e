package mcp.config.internal.sources;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The part of the environment Gemini CLI passes on to a stdio MCP server: its environment without the
 * variables that look secret, by name or by value, as its {@code environmentSanitization} does (seen in
 * AgentFixturesTest: {@code FIX_TOKEN} never reached a server). A server's own {@code env} comes on top,
 * unfiltered. The user's own allow and block lists of that sanitization are not read.
 */
final class GeminiEnvironment {

    private static final Set<String> ALWAYS_ALLOWED = Set.of("PATH", "SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR",
            "TEMP", "TMP", "USERPROFILE", "SYSTEMDRIVE", "HOME", "LANG", "SHELL", "TMPDIR", "USER", "LOGNAME", "TERM",
            "COLORTERM", "ADDITIONAL_CONTEXT", "AVAILABLE_LABELS", "BRANCH_NAME", "DESCRIPTION", "EVENT_NAME",
            "GITHUB_ENV", "IS_PULL_REQUEST", "ISSUES_TO_TRIAGE", "ISSUE_BODY", "ISSUE_NUMBER", "ISSUE_TITLE",
            "PULL_REQUEST_NUMBER", "REPOSITORY", "TITLE", "TRIGGERING_ACTOR");

    private static final Set<String> NEVER_ALLOWED = Set.of("CLIENT_ID", "DB_URI", "CONNECTION_STRING",
            "AWS_DEFAULT_REGION", "AZURE_CLIENT_ID", "AZURE_TENANT_ID", "SLACK_WEBHOOK_URL", "TWILIO_ACCOUNT_SID",
            "DATABASE_URL", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_ACCOUNT", "FIREBASE_PROJECT_ID");

    private static final Pattern SECRET_NAME = Pattern.compile(
            "TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE|CERT", Pattern.CASE_INSENSITIVE);

    private static final List<Pattern> SECRET_VALUES = List.of(
            Pattern.compile("-----BEGIN (RSA|OPENSSH|EC|PGP) PRIVATE KEY-----", Pattern.CASE_INSENSITIVE),
            Pattern.compile("-----BEGIN CERTIFICATE-----", Pattern.CASE_INSENSITIVE),
            Pattern.compile("(https?|ftp|smtp)://[^:]+:[^@]+@", Pattern.CASE_INSENSITIVE),
            Pattern.compile("(ghp|gho|ghu|ghs|ghr|github_pat)_[a-zA-Z0-9_]{36,}", Pattern.CASE_INSENSITIVE),
            Pattern.compile("AIzaSy[a-zA-Z0-9_\\\\-]{33}", Pattern.CASE_INSENSITIVE),
            Pattern.compile("AKIA[A-Z0-9]{16}", Pattern.CASE_INSENSITIVE),
            Pattern.compile("eyJ[a-zA-Z0-9_-]*\\.[a-zA-Z0-9_-]*\\.[a-zA-Z0-9_-]*", Pattern.CASE_INSENSITIVE),
            Pattern.compile("(s|r)k_(live|test)_[0-9a-zA-Z]{24}", Pattern.CASE_INSENSITIVE),
            Pattern.compile("xox[abpr]-[a-zA-Z0-9-]+", Pattern.CASE_INSENSITIVE));

    private GeminiEnvironment() {
    }

    /**
     * @param environment the environment of the discovery (the host's)
     * @return the names of the variables Gemini CLI would pass on, in the environment's order
     */
    static List<String> inherited(Map<String, String> environment) {
        // On GitHub Actions Gemini CLI keeps only the variables it always allows.
        boolean strict = environment.containsKey("GITHUB_SHA") || "Github".equals(environment.get("SURFACE"));
        List<String> names = new ArrayList<>();
        environment.forEach((name, value) -> {
            if (passes(name.toUpperCase(Locale.ROOT), value == null ? "" : value, strict)) {
                names.add(name);
            }
        });
        return names;
    }

    private static boolean passes(String name, String value, boolean strict) {
        if (name.startsWith("GEMINI_CLI_")) {
            return true;
        }
        if (SECRET_VALUES.stream().anyMatch(p -> p.matcher(value).find())) {
            return false;
        }
        if (ALWAYS_ALLOWED.contains(name)) {
            return true;
        }
        if (NEVER_ALLOWED.contains(name) || strict) {
            return false;
        }
        return !SECRET_NAME.matcher(name).find();
    }
}
