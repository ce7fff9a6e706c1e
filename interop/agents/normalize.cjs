// Copies one scenario that regenerate.sh ran into the test resources, made machine-independent:
//
//   node normalize.cjs WORK DEST ROOT PORT
//
// WORK holds scenario.json, root/ (the scratch root the tools ran in) and expected/ (their outputs);
// DEST is replaced by a copy in which the scratch root's path is @ROOT@ and the HTTP recorder's
// port is @PORT@ in every file. Of root/ only the config files are kept (.json and .toml): not the
// repositories' .git, the tools' logs, caches, backups, sessions, skills or temporary files. Values
// that change from run to run (ids, timestamps, a WebSocket nonce) are replaced by placeholders, so
// that regenerating gives no diff.
'use strict';
const fs = require('fs');
const path = require('path');

const [work, dest, root, port] = process.argv.slice(2);
const SKIPPED_DIRS = new Set(['.git', '.cache', 'backups', 'history', 'tmp', 'log', 'logs', 'sessions',
  'shell_snapshots', 'skills', 'plugins', 'cache', 'antigravity-browser-profile']);
// ~/.claude.json: per-install ids and the time of the first start.
const VOLATILE_KEYS = { firstStartTime: '@TIME@', machineID: '@MACHINE_ID@', userID: '@USER_ID@' };
const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
// A WebSocket client's handshake nonce (the recorder's records of Claude Code's "ws" server).
const WEBSOCKET_KEY = /"sec-websocket-key":"[^"]*"/g;
// When a session of Claude Code (claude -p) last used each built-in plugin, in ~/.claude.json (epoch ms).
const LAST_USED = /"lastUsedAt": \d+/g;

function placeholders(text) {
  return text.split(root).join('@ROOT@')
    .split('127.0.0.1:' + port).join('127.0.0.1:@PORT@')
    .replace(TIMESTAMP, '@TIME@')
    .replace(WEBSOCKET_KEY, '"sec-websocket-key":"@WS_KEY@"');
}

function normalizeJson(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return text;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return text;
  let changed = false;
  for (const [key, replacement] of Object.entries(VOLATILE_KEYS)) {
    if (key in value) {
      value[key] = replacement;
      changed = true;
    }
  }
  return changed ? JSON.stringify(value, null, 2) + '\n' : text;
}

// A launch record's headers in name order: a client's header order is no part of what it sends
// (Codex's even changes from run to run), and the records in line order.
function normalizeRecords(text) {
  return text.split('\n').filter((line) => line.trim()).map((line) => {
    const record = JSON.parse(line);
    if (record.headers) {
      record.headers = Object.fromEntries(Object.entries(record.headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return JSON.stringify(record);
  }).sort().map((line) => line + '\n').join('');
}

// What a model endpoint recorded (the tools offered, the calls let through): an agent may ask its model more than
// once with the same tools, and in no fixed order; each line once, in order.
function uniqueLines(text) {
  return [...new Set(text.split('\n').filter((line) => line.trim()))].sort().map((line) => line + '\n').join('');
}

function copy(from, to, keep) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) copy(source, path.join(to, entry.name), keep);
    } else if (entry.isFile() && keep(entry.name)) {
      fs.mkdirSync(to, { recursive: true });
      let text = fs.readFileSync(source, 'utf8');
      if (entry.name.endsWith('.json')) text = normalizeJson(text).replace(LAST_USED, '"lastUsedAt": 0');
      text = placeholders(text);
      if (entry.name.endsWith('.launches.jsonl')) text = normalizeRecords(text);
      else if (entry.name.endsWith('.jsonl')) text = uniqueLines(text);
      fs.writeFileSync(path.join(to, entry.name), text);
    }
  }
}

fs.rmSync(dest, { recursive: true, force: true });
fs.mkdirSync(dest, { recursive: true });
fs.writeFileSync(path.join(dest, 'scenario.json'), placeholders(fs.readFileSync(path.join(work, 'scenario.json'), 'utf8')));
copy(path.join(work, 'root'), path.join(dest, 'root'), (name) => /\.(json|toml)$/.test(name) && name !== 'launches.jsonl');
copy(path.join(work, 'expected'), path.join(dest, 'expected'), () => true);
