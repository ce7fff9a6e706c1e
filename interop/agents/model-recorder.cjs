#!/usr/bin/env node
// A recording model endpoint for the agent fixtures (interop/agents/regenerate.sh, AgentFixturesTest): the agents'
// CLIs are pointed at it instead of their vendor's API, and it writes down the MCP tools each one offers its model.
// Plain Node, no dependencies, 127.0.0.1 only.
//
//   node model-recorder.cjs LOG [--call]        prints its port on stdout; ends when its stdin closes
//
// It speaks just enough of three APIs to get an agent through one turn:
//   Anthropic Messages (POST .../v1/messages: Claude Code with ANTHROPIC_BASE_URL),
//   OpenAI Responses (POST .../v1/responses: Codex with a model provider whose base_url is here),
//   Gemini generateContent / streamGenerateContent (Gemini CLI with GOOGLE_GEMINI_BASE_URL).
// Each request that offers tools appends one line to LOG: {"api", "tools"}, the names of the MCP tools it offered
// the model, sorted, as the agent names them (Claude Code "mcp__server__tool", Codex "mcp__server__tool" for the
// tool "tool" of its namespace "mcp__server", Gemini CLI "mcp_server_tool"), and for Claude Code "deferred", those
// it listed for its ToolSearch instead of sending their schemas.
//
// With --call (Anthropic only), the first answer to a request that offers MCP tools asks to call every one of them;
// the recording MCP server (recorder.cjs) writes down the calls the agent then let through, which shows its call
// policy: in `claude -p` a call that needs a permission prompt is refused, one its allow rules allow runs.
'use strict';
const fs = require('fs');
const http = require('http');

const [logFile, ...options] = process.argv.slice(2);
if (!logFile) {
  process.stderr.write('usage: model-recorder.cjs LOG [--call]\n');
  process.exit(2);
}
const callTools = options.includes('--call');
let called = false;

function record(entry) {
  fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
}

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [type, data] of events) {
    res.write((type ? 'event: ' + type + '\n' : '') + 'data: ' + JSON.stringify(data) + '\n\n');
  }
  res.end();
}

// Claude Code lists the tools it defers in a system text, one name a line, after this sentence.
const DEFERRED = /deferred tools are now available via ToolSearch[^\n]*\n((?:[^\n]+\n?)*)/;

function anthropic(body, res) {
  const tools = (body.tools || []).map((t) => t.name).filter((n) => n && n.startsWith('mcp__'));
  const deferred = new Set();
  const text = JSON.stringify(body.messages || []) + JSON.stringify(body.system || '');
  const unescaped = text.replace(/\\n/g, '\n');
  const match = DEFERRED.exec(unescaped);
  if (match) {
    for (const line of match[1].split('\n')) {
      if (line.startsWith('mcp__')) deferred.add(line.trim());
    }
  }
  if ((body.tools || []).length > 0) {
    record({ api: 'anthropic', tools: tools.sort(), deferred: [...deferred].sort() });
  }
  const message = { id: 'msg_1', type: 'message', role: 'assistant', model: body.model || 'model', content: [],
    stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  const wantsCalls = callTools && !called && tools.length > 0;
  if (wantsCalls) called = true;
  const blocks = wantsCalls
    ? tools.map((name, i) => ({ type: 'tool_use', id: 'toolu_' + i, name, input: {} }))
    : [{ type: 'text', text: 'ok' }];
  const stop = wantsCalls ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ...message, content: blocks, stop_reason: stop }));
    return;
  }
  const events = [['message_start', { type: 'message_start', message }]];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '{}' } }]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  sse(res, events);
}

function responses(body, res) {
  const tools = [];
  const calls = [];
  for (const tool of body.tools || []) {
    if (tool.type === 'namespace' && (tool.name || '').startsWith('mcp__')) {
      for (const inner of tool.tools || []) {
        tools.push(tool.name + '__' + inner.name);
        calls.push({ namespace: tool.name, name: inner.name });
      }
    } else if ((tool.name || '').startsWith('mcp__')) {
      tools.push(tool.name);
      calls.push({ name: tool.name });
    }
  }
  if ((body.tools || []).length > 0) record({ api: 'openai', tools: tools.sort() });
  const wantsCalls = callTools && !called && calls.length > 0;
  if (wantsCalls) called = true;
  const items = wantsCalls
    ? calls.map((call, i) => ({ type: 'function_call', id: 'fc_' + i, call_id: 'call_' + i, ...call, arguments: '{}',
      status: 'completed' }))
    : [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed',
      content: [{ type: 'output_text', text: 'ok', annotations: [] }] }];
  sse(res, [
    ['response.created', { type: 'response.created', response: { id: 'resp_1' } }],
    ...items.map((item, i) => ['response.output_item.done', { type: 'response.output_item.done', output_index: i, item }]),
    ['response.completed', { type: 'response.completed', response: { id: 'resp_1', output: items,
      usage: { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null,
        total_tokens: 2 } } }],
  ]);
}

function gemini(url, body, res) {
  const declarations = (body.tools || []).flatMap((t) => t.functionDeclarations || []);
  if (declarations.length > 0) {
    record({ api: 'gemini', tools: declarations.map((d) => d.name).filter((n) => n && n.startsWith('mcp_')).sort() });
  }
  const chunk = { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } };
  if (url.includes(':streamGenerateContent')) {
    sse(res, [[null, chunk]]);
  } else {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk));
  }
}

const server = http.createServer((req, res) => {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => { text += chunk; });
  req.on('end', () => {
    let body = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch (e) {
      res.writeHead(400).end();
      return;
    }
    const url = req.url;
    if (req.method === 'POST' && url.includes('/messages') && !url.includes('count_tokens')) {
      anthropic(body, res);
    } else if (req.method === 'POST' && url.includes('/responses')) {
      responses(body, res);
    } else if (req.method === 'POST' && /:(stream)?[gG]enerateContent/.test(url)) {
      gemini(url, body, res);
    } else if (url.includes('count_tokens') || url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":1,"totalTokens":1}');
    } else {
      res.writeHead(404).end();
    }
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\n'));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
