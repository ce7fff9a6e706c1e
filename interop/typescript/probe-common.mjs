// What the TypeScript SDK probes (probe-v1.mjs, probe-v2.mjs) share: the command line, the script of operations,
// the one JSON document on stdout and the time bound. Only the SDK calls differ between them.
//
// probe-vN.mjs [--era auto|2025|2026] [--timeout SECONDS] [--script JSON|@FILE]
//              (--url URL [--header 'Name: value']... | --stdio CMD ARG...)
//
// The script is a JSON array of operations, run in order on one connection:
//   {"op": "tools"}                                  list the tools (every page)
//   {"op": "call", "name": N, "arguments": {...}}    call a tool; its text content is reported
//   {"op": "read", "uri": U}                         list the resources (every page), then read U
//   {"op": "prompt", "name": N, "arguments": {...}}  list the prompts (every page), then get N
// Without --script: [{"op": "tools"}]. --stdio takes the rest of the command line, so it comes last.
//
// stdout gets exactly one JSON document (see report()); diagnostics go to stderr. The exit code is 0 only when the
// connection and every operation succeeded (a tool result with isError counts as a failure), 1 otherwise, 2 on a
// bad command line. The whole run is bounded by --timeout (30 s): then the report so far is printed with the
// error "timeout" and the process exits 1, which ends a stdio server the SDK started (it closes the server's stdin).
import { readFileSync } from 'node:fs';

// stdout is the report's alone: anything an SDK logs through the console goes to stderr.
for (const level of ['log', 'info', 'debug', 'trace']) {
    console[level] = console.error;
}

export function usage(name, eras) {
    return `usage: ${name} [--era ${eras.join('|')}] [--timeout SECONDS] [--script JSON|@FILE] `
        + `(--url URL [--header 'Name: value']... | --stdio CMD ARG...)`;
}

/** Parses the command line; exits 2 with the usage on an error. */
export function parseArgs(argv, name, eras) {
    const options = { era: eras[0], timeoutSeconds: 30, script: [{ op: 'tools' }], headers: {} };
    const fail = (message) => {
        process.stderr.write(`${name}: ${message}\n${usage(name, eras)}\n`);
        process.exit(2);
    };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        const value = () => (i + 1 < argv.length ? argv[++i] : fail(`${arg} needs a value`));
        if (arg === '--era') {
            options.era = value();
            if (!eras.includes(options.era)) {
                fail(`this SDK offers the eras ${eras.join(', ')}, not ${options.era}`);
            }
        } else if (arg === '--timeout') {
            options.timeoutSeconds = Number(value());
            if (!(options.timeoutSeconds > 0)) {
                fail('--timeout needs a positive number of seconds');
            }
        } else if (arg === '--script') {
            const text = value();
            try {
                options.script = JSON.parse(text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text);
            } catch (error) {
                fail(`--script: ${error.message}`);
            }
            if (!Array.isArray(options.script)) {
                fail('--script must be a JSON array of operations');
            }
        } else if (arg === '--url') {
            options.url = value();
        } else if (arg === '--header') {
            const header = value();
            const colon = header.indexOf(':');
            if (colon <= 0) {
                fail(`--header needs 'Name: value', not ${header}`);
            }
            options.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
        } else if (arg === '--stdio') {
            options.stdio = argv.slice(i + 1);
            if (options.stdio.length === 0) {
                fail('--stdio needs a command');
            }
            break;
        } else {
            fail(`unknown argument ${arg}`);
        }
    }
    if ((options.url === undefined) === (options.stdio === undefined)) {
        fail('give exactly one of --url and --stdio');
    }
    if (options.stdio !== undefined && Object.keys(options.headers).length > 0) {
        fail('--header goes with --url');
    }
    return options;
}

/** An error as data: its message, and its JSON-RPC code or HTTP status where the SDK gives one. */
export function errorData(error) {
    const data = { message: String(error?.message ?? error) };
    if (typeof error?.code === 'number' || typeof error?.code === 'string') {
        data.code = error.code;
    }
    return data;
}

function textOf(content) {
    return (content ?? []).filter((c) => c.type === 'text').map((c) => c.text);
}

/**
 * Runs the probe: connect(options) resolves to an SDK session object with the methods below, or rejects; report
 * holds everything seen so far and is printed exactly once, on completion or on the time bound.
 *
 * The session: { protocolVersion(), serverInfo(), listTools(), callTool(name, args), listResources(),
 * readResource(uri), listPrompts(), getPrompt(name, args), close() }, each list resolving to every page.
 */
export async function runProbe({ name, sdk, eras, connect }) {
    const options = parseArgs(process.argv.slice(2), name, eras);
    const report = {
        probe: name,
        sdk,
        era: options.era,
        target: options.url ?? options.stdio.join(' '),
        protocolVersion: null,
        serverInfo: null,
        ok: false,
        error: null,
        operations: []
    };
    let printed = false;
    const finish = (code) => {
        if (!printed) {
            printed = true;
            process.stdout.write(JSON.stringify(report) + '\n');
        }
        process.exitCode = code;
        // A handle the SDK leaves open (an HTTP stream, a child's pipe) must not keep the probe alive.
        setTimeout(() => process.exit(code), 1000).unref();
    };
    const timer = setTimeout(() => {
        report.ok = false;
        report.error ??= { message: `timeout: the probe did not finish within ${options.timeoutSeconds} s` };
        process.stderr.write(`${name}: ${report.error.message}\n`);
        finish(1);
        process.exit(1);
    }, options.timeoutSeconds * 1000);
    timer.unref();

    let session;
    try {
        session = await connect(options);
    } catch (error) {
        process.stderr.write(`${name}: connect failed: ${error?.stack ?? error}\n`);
        report.error = errorData(error);
        finish(1);
        clearTimeout(timer);
        return;
    }
    report.protocolVersion = session.protocolVersion() ?? null;
    report.serverInfo = session.serverInfo() ?? null;
    let allOk = true;
    for (const step of options.script) {
        const entry = { ...step, ok: false };
        report.operations.push(entry);
        try {
            if (step.op === 'tools') {
                entry.tools = (await session.listTools()).map((t) => t.name);
                entry.ok = true;
            } else if (step.op === 'call') {
                const result = await session.callTool(step.name, step.arguments ?? {});
                entry.isError = result.isError === true;
                entry.text = textOf(result.content);
                if (result.structuredContent !== undefined) {
                    entry.structuredContent = result.structuredContent;
                }
                entry.ok = !entry.isError;
            } else if (step.op === 'read') {
                entry.resources = (await session.listResources()).map((r) => r.uri);
                entry.listed = entry.resources.includes(step.uri);
                const result = await session.readResource(step.uri);
                entry.contents = result.contents.map((c) => ({
                    uri: c.uri,
                    mimeType: c.mimeType ?? null,
                    ...(typeof c.text === 'string' ? { text: c.text } : { blobLength: c.blob?.length ?? 0 })
                }));
                entry.ok = true;
            } else if (step.op === 'prompt') {
                entry.prompts = (await session.listPrompts()).map((p) => p.name);
                entry.listed = entry.prompts.includes(step.name);
                const result = await session.getPrompt(step.name, step.arguments ?? {});
                entry.messages = result.messages.map((m) => ({
                    role: m.role,
                    ...(m.content?.type === 'text' ? { text: m.content.text } : { type: m.content?.type })
                }));
                entry.ok = true;
            } else {
                entry.error = { message: `unknown operation ${JSON.stringify(step.op)}` };
            }
        } catch (error) {
            process.stderr.write(`${name}: ${step.op} failed: ${error?.stack ?? error}\n`);
            entry.error = errorData(error);
        }
        allOk &&= entry.ok;
    }
    report.ok = allOk;
    try {
        await session.close();
    } catch (error) {
        process.stderr.write(`${name}: close failed: ${error?.stack ?? error}\n`);
    }
    clearTimeout(timer);
    finish(allOk ? 0 : 1);
}

/** Every page of a list call: list(cursor) resolves to { items, nextCursor }. */
export async function allPages(list) {
    const items = [];
    let cursor;
    for (let page = 0; page < 100; page++) {
        const result = await list(cursor);
        items.push(...result.items);
        cursor = result.nextCursor;
        if (cursor === undefined || cursor === null) {
            return items;
        }
    }
    throw new Error('more than 100 pages');
}
