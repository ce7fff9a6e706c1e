#!/usr/bin/env node
// A recording MCP server for the agent fixtures (interop/agents/regenerate.sh, AgentFixturesTest).
// Plain Node, no dependencies, so that every agent CLI and mcp-host can start it the same way.
//
//   node recorder.cjs LABEL [ARGS...]          stdio MCP server
//   node recorder.cjs --tools A,B LABEL [ARGS...]
//                                              the same, offering tools A and B (a name ending in :ro is a
//                                              tool with readOnlyHint) instead of the one tool "recorded"
//   node recorder.cjs --http PORT              Streamable HTTP (POST .../mcp) and legacy SSE (GET .../sse)
//                                              on 127.0.0.1 only; PORT 0 picks a free one, printed on stdout
//
// Each start (stdio) or request (HTTP) appends one JSON line to the log: the file named by
// --log FILE (before the label), else $MCP_RECORDER_LOG, else launches.jsonl next to this script.
// The file next to the script is the one the fixtures use: Codex passes its servers only a few
// environment variables, so neither an inherited variable nor an extra argument may be needed.
//
// A stdio record: {"kind":"stdio","label","argv","argv0","cwd","env","inherited"}:
//   argv      process.argv without the node executable (script, label, args);
//   env       the values of HOME and of every FIX_* variable (the fixtures' own);
//   inherited the names, sorted, of every other variable the server got.
// An HTTP record: {"kind":"http","method","path","headers"} with the header names lowercased.
// A tool call (stdio): {"kind":"call","label","tool","arguments"}: what a tool's client let its model run.
'use strict';
const fs = require('fs');
const path = require('path');

let args = process.argv.slice(2);
let logFile = process.env.MCP_RECORDER_LOG || path.join(__dirname, 'launches.jsonl');
if (args[0] === '--log') {
  logFile = args[1];
  args = args.slice(2);
}
let offered = null;
if (args[0] === '--tools') {
  offered = args[1].split(',').filter((name) => name).map((name) => {
    const readOnly = name.endsWith(':ro');
    const tool = {
      name: readOnly ? name.slice(0, -3) : name,
      description: 'Does nothing; the server only records how it was started.',
      inputSchema: { type: 'object', properties: {} },
    };
    if (readOnly) tool.annotations = { readOnlyHint: true };
    return tool;
  });
  args = args.slice(2);
}

function record(entry) {
  // One write per line, appended: several servers may start at the same time.
  fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
}

const TOOL = {
  name: 'recorded',
  description: 'Does nothing; the server only records how it was started.',
  inputSchema: { type: 'object', properties: {} },
};

/** The answer to one JSON-RPC request, or null for a notification. */
function answer(message, label) {
  if (message.id === undefined || message.id === null) {
    return null;
  }
  const reply = (result) => ({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize':
      return reply({
        protocolVersion: (message.params && message.params.protocolVersion) || '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'recorder', version: '1.0.0' },
      });
    case 'tools/list':
      return reply({ tools: offered || [TOOL] });
    case 'tools/call':
      record({ kind: 'call', label, tool: message.params && message.params.name,
        arguments: (message.params && message.params.arguments) || {} });
      return reply({ content: [{ type: 'text', text: 'recorded' }] });
    case 'ping':
      return reply({});
    default:
      return { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found: ' + message.method } };
  }
}

function stdioServer(label) {
  const env = {};
  const inherited = [];
  for (const name of Object.keys(process.env).sort()) {
    if (name === 'HOME' || name.startsWith('FIX_')) {
      env[name] = process.env[name];
    } else {
      inherited.push(name);
    }
  }
  record({ kind: 'stdio', label, argv: process.argv.slice(1), argv0: process.argv0, cwd: process.cwd(), env, inherited });
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch (e) {
        continue;
      }
      const reply = answer(message, label);
      if (reply) process.stdout.write(JSON.stringify(reply) + '\n');
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

function httpServer(port) {
  const http = require('http');
  const sseStreams = new Map(); // sessionId -> response of the legacy SSE GET
  let nextSession = 1;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    record({ kind: 'http', method: req.method, path: url.pathname, headers: req.headers });
    if (req.method === 'GET' && url.pathname.endsWith('/sse')) {
      // Legacy HTTP+SSE: the stream names the endpoint that takes the client's messages.
      const session = String(nextSession++);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const endpoint = url.pathname.slice(0, -'/sse'.length) + '/message?sessionId=' + session;
      res.write('event: endpoint\ndata: ' + endpoint + '\n\n');
      sseStreams.set(session, res);
      req.on('close', () => sseStreams.delete(session));
      return;
    }
    if (req.method !== 'POST') {
      // No server-initiated stream over Streamable HTTP, no session to delete.
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      let messages;
      try {
        const parsed = JSON.parse(body);
        messages = Array.isArray(parsed) ? parsed : [parsed];
      } catch (e) {
        res.writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const replies = messages.map((m) => answer(m, url.pathname.split('/')[1])).filter((r) => r !== null);
      const session = url.searchParams.get('sessionId');
      if (session !== null) {
        const stream = sseStreams.get(session);
        if (!stream) {
          res.writeHead(404).end();
          return;
        }
        replies.forEach((r) => stream.write('event: message\ndata: ' + JSON.stringify(r) + '\n\n'));
        res.writeHead(202).end();
        return;
      }
      if (replies.length === 0) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(Array.isArray(JSON.parse(body)) ? replies : replies[0]));
    });
  });
  // A WebSocket client (Claude Code's "ws" type) asks for an upgrade, which never reaches 'request':
  // record it too, then refuse it.
  server.on('upgrade', (req, socket) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    record({ kind: 'http', method: req.method, path: url.pathname, headers: req.headers });
    socket.end('HTTP/1.1 501 Not Implemented\r\nconnection: close\r\n\r\n');
  });
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(server.address().port + '\n');
  });
  // The parent ends the server by closing stdin (or with a signal).
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

if (args[0] === '--http') {
  httpServer(Number(args[1] || 0));
} else {
  stdioServer(args[0] || '');
}
