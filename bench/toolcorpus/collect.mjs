#!/usr/bin/env node
// Starts each server of servers.json over stdio (dummy credentials, a scratch HOME), sends initialize,
// notifications/initialized and tools/list (every page), and writes servers/<name>.json.
// Usage: node collect.mjs [name ...]   (no names: every server not marked "skip")
// Run through collect.sh, which installs the pinned packages first.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCRATCH = '/tmp/mcp-toolcorpus-scratch'; // fixed, so paths that servers echo in descriptions are stable
const TIMEOUT_MS = 45_000;                     // per server, from spawn to the last page
const SETTLE_MS = 1_500;                       // quiet time after initialized before listing (late registrations)
const PROTOCOL = '2025-06-18';

const config = JSON.parse(fs.readFileSync(path.join(here, 'servers.json'), 'utf8'));
const wanted = process.argv.slice(2);
const outDir = path.join(here, 'servers');
fs.mkdirSync(outDir, { recursive: true });

function pkgJson(pkg) {
  return JSON.parse(fs.readFileSync(path.join(here, 'node_modules', pkg, 'package.json'), 'utf8'));
}

function licenceOf(pj) {
  if (typeof pj.license === 'string') return pj.license;
  if (pj.license && pj.license.type) return pj.license.type;
  if (Array.isArray(pj.licenses)) return pj.licenses.map(l => l.type || l).join(' OR ');
  return 'UNKNOWN';
}

function entryPoint(server, pj) {
  const dir = path.join(here, 'node_modules', server.package);
  if (server.entry) return path.join(dir, server.entry);
  let bin = pj.bin;
  if (typeof bin === 'string') return path.join(dir, bin);
  if (bin && typeof bin === 'object') {
    const names = Object.keys(bin);
    const name = server.bin || (names.length === 1 ? names[0] : null);
    if (!name || !bin[name]) throw new Error(`package ${server.package} has bins ${names.join(', ')}: set "bin"`);
    return path.join(dir, bin[name]);
  }
  if (pj.main) return path.join(dir, pj.main);
  throw new Error(`package ${server.package} has no bin and no main: set "entry"`);
}

function subst(value) {
  return value.replaceAll('${SCRATCH}', SCRATCH).replaceAll('${HERE}', here);
}

function isScript(file) {
  const head = fs.readFileSync(file).subarray(0, 64).toString('latin1');
  return file.endsWith('.js') || file.endsWith('.mjs') || file.endsWith('.cjs') || /^#!.*node/.test(head);
}

async function collect(server) {
  const pj = pkgJson(server.package);
  const entry = entryPoint(server, pj);
  const home = path.join(SCRATCH, 'home');
  fs.rmSync(SCRATCH, { recursive: true, force: true });
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(path.join(SCRATCH, 'work'), { recursive: true });
  for (const [rel, content] of Object.entries(server.files || {})) { // dummy config files a server insists on
    const file = path.join(SCRATCH, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, typeof content === 'string' ? subst(content) : JSON.stringify(content));
  }
  const env = {
    PATH: process.env.PATH, HOME: home, TMPDIR: path.join(SCRATCH, 'work'), LANG: 'C.UTF-8', TZ: 'UTC',
    NODE_ENV: 'production', NO_COLOR: '1', DO_NOT_TRACK: '1',
  };
  for (const [k, v] of Object.entries(server.env || {})) env[k] = subst(v);
  const args = (server.args || []).map(subst);
  const [cmd, argv] = isScript(entry) ? [process.execPath, [entry, ...args]] : [entry, args];
  const child = spawn(cmd, argv, { cwd: path.join(SCRATCH, 'work'), env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', d => { if (stderr.length < 4000) stderr += d; });

  const pending = new Map();
  let nextId = 1, buf = '', listChanged = 0;
  child.stdout.on('data', chunk => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line.startsWith('{')) continue; // some servers print banners on stdout
      let msg;
      try { msg = JSON.parse(line); } catch { continue; }
      if (msg.id !== undefined && pending.has(msg.id) && (msg.result !== undefined || msg.error !== undefined)) {
        const { resolve, reject } = pending.get(msg.id);
        pending.delete(msg.id);
        msg.error ? reject(new Error(`${msg.error.code}: ${msg.error.message}`)) : resolve(msg.result);
      } else if (msg.method === 'notifications/tools/list_changed') {
        listChanged++;
      } else if (msg.method && msg.id !== undefined) {
        // a request from the server (roots/list, sampling, elicitation): we declared none of them
        send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
      }
    }
  });
  const exited = new Promise(resolve => child.on('exit', (code, sig) => resolve(`exited (${sig || code})`)));
  child.on('error', e => { for (const p of pending.values()) p.reject(e); });
  function send(msg) { child.stdin.write(JSON.stringify(msg) + '\n'); }
  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ jsonrpc: '2.0', id, method, params });
      exited.then(why => reject(new Error(`server ${why} before answering ${method}: ${stderr.trim().slice(-600)}`)));
    });
  }
  async function listAll() {
    const tools = [];
    let cursor;
    for (let page = 0; page < 100; page++) {
      const result = await request('tools/list', cursor ? { cursor } : {});
      tools.push(...(result.tools || []));
      cursor = result.nextCursor;
      if (!cursor) return tools;
    }
    throw new Error('more than 100 pages of tools');
  }
  const work = (async () => {
    const init = await request('initialize', {
      protocolVersion: PROTOCOL, capabilities: {},
      clientInfo: { name: 'mcp-host-toolcorpus', version: '1' },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await new Promise(r => setTimeout(r, server.settleMs ?? SETTLE_MS));
    let seen = listChanged, tools = await listAll();
    while (listChanged !== seen) { seen = listChanged; tools = await listAll(); }
    return { init, tools };
  })();
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer in ${TIMEOUT_MS} ms: ${stderr.trim().slice(-600)}`)), TIMEOUT_MS); });
  try {
    const { init, tools } = await Promise.race([work, timeout]);
    return {
      name: server.name,
      package: server.package,
      version: pj.version,
      license: server.license ?? licenceOf(pj),
      licenseSource: server.licenseSource ?? 'package.json',
      serverInfo: { name: init.serverInfo?.name ?? null, version: init.serverInfo?.version ?? null },
      protocolVersion: init.protocolVersion,
      tools,
    };
  } finally {
    clearTimeout(timer);
    child.stdin.end();
    const gone = await Promise.race([exited, new Promise(r => setTimeout(() => r(null), 2000))]);
    if (!gone) { child.kill('SIGTERM'); await Promise.race([exited, new Promise(r => setTimeout(r, 2000))]); child.kill('SIGKILL'); }
  }
}

let failed = 0;
for (const server of config.servers) {
  if (wanted.length ? !wanted.includes(server.name) : server.skip) continue;
  try {
    const out = await collect(server);
    if (!/^(MIT|ISC|Apache-2\.0|BSD-[23]-Clause)$/.test(out.license)) throw new Error(`licence ${out.license}: not known to allow redistribution`);
    if (out.tools.length === 0) throw new Error('tools/list returned no tools');
    fs.writeFileSync(path.join(outDir, `${server.name}.json`), JSON.stringify(out, null, 2) + '\n');
    console.log(`${server.name}: ${out.tools.length} tools (${server.package}@${out.version}, ${out.license})`);
  } catch (e) {
    failed++;
    console.log(`${server.name}: FAILED ${String(e.message).replace(/\s+/g, ' ').slice(0, 400)}`);
  }
}
fs.rmSync(SCRATCH, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
