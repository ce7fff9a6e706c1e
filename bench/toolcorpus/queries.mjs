#!/usr/bin/env node
// Checks a query file against the collected servers/*.json and computes each query's noSharedWord flag.
//   node queries.mjs [FILE]          check, and rewrite FILE with the computed flags (stable output)
//   node queries.mjs [FILE] --check  check only: exit 1 when a flag differs or an expected tool is missing
// FILE defaults to queries.json; a relative FILE is looked up in the current directory, then next to this
// script (so `node queries.mjs queries-sampled.json` works from anywhere). An optional per-query "note"
// (free text, e.g. why a tool is an odd target) is kept as written.
// A query "shares a word" with a tool when one of its content words (lower-cased, split on anything that
// is not a letter or digit, stop words dropped, then a light suffix stem) is also a content word of the
// tool's name, title, description, or of a parameter's name or description (nested ones too). For a
// query with several expected tools, noSharedWord is true only when it shares no word with any of them.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const checkOnly = process.argv.includes('--check');
const fileArg = process.argv.slice(2).find(a => !a.startsWith('--'));

// Function words only: no domain word (list, get, file, issue...) is a stop word here.
export const STOP_WORDS = new Set(`a about above after again against all am an and any are aren as at be because been
before being below between both but by can cannot could did do does doing don down during each few for from further
had has have having he her here hers herself him himself his how i if in into is isn it its itself just let me more
most my myself no nor not now of off on once only or other ought our ours ourselves out over own same she should so
some such than that the their theirs them themselves then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours yourself yourselves
s t ll re ve d m also please whats there's i'm im lets let's ok okay eg ie etc via per`.split(/\s+/));

// Splits camelCase and snake_case/kebab-case names, lower-cases, keeps letters and digits.
export function words(text) {
  return String(text ?? '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(w => w && !STOP_WORDS.has(w));
}

// A light, conservative stemmer: plural and verb suffixes only, so that "issues"/"issue" and
// "stashing"/"stash" count as the same word (the flag must not call a mere plural a synonym).
export function stem(w) {
  if (w.length > 5 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 5 && w.endsWith('ing')) return undouble(w.slice(0, -3));
  if (w.length > 4 && w.endsWith('ed')) return undouble(w.slice(0, -2));
  if (w.length > 4 && /(ches|shes|sses|xes|zes)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) return w.slice(0, -1);
  return w;
}
function undouble(w) {
  return /([bdfgmnprt])\1$/.test(w) ? w.slice(0, -1) : w.endsWith('at') || w.endsWith('iz') ? w + 'e' : w;
}

export function toolText(tool) {
  const parts = [tool.name, tool.title, tool.annotations?.title, tool.description];
  (function walk(schema) {
    if (!schema || typeof schema !== 'object') return;
    for (const [name, prop] of Object.entries(schema.properties || {})) {
      parts.push(name, prop?.description, prop?.title);
      walk(prop);
    }
    if (schema.items) walk(schema.items);
    for (const k of ['anyOf', 'oneOf', 'allOf']) for (const s of schema[k] || []) walk(s);
  })(tool.inputSchema);
  return parts.filter(Boolean).join(' ');
}

export function stems(text) { return new Set(words(text).map(stem)); }

export function loadCorpus() {
  const dir = path.join(here, 'servers');
  const servers = new Map();
  for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.json')).sort()) {
    const s = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    servers.set(s.name, new Map(s.tools.map(t => [t.name, t])));
  }
  return servers;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const servers = loadCorpus();
  const file = !fileArg ? path.join(here, 'queries.json')
    : fs.existsSync(path.resolve(fileArg)) ? path.resolve(fileArg) : path.join(here, fileArg);
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  let problems = 0, changed = 0, synonyms = 0;
  const ids = new Set();
  for (const q of doc.queries) {
    if (ids.has(q.id)) { console.log(`${q.id}: duplicate id`); problems++; }
    ids.add(q.id);
    const qs = stems(q.query);
    if (qs.size === 0) { console.log(`${q.id}: no content word`); problems++; }
    if (q.note !== undefined && (typeof q.note !== 'string' || !q.note.trim())) { console.log(`${q.id}: note must be a non-empty string`); problems++; }
    if (!Array.isArray(q.expected) || q.expected.length === 0) { console.log(`${q.id}: no expected tool`); problems++; q.expected = []; }
    const seen = new Set(q.expected.map(e => `${e.server}/${e.tool}`));
    if (seen.size !== q.expected.length) { console.log(`${q.id}: an expected tool is listed twice`); problems++; }
    let shared = false;
    for (const e of q.expected) {
      const tool = servers.get(e.server)?.get(e.tool);
      if (!tool) { console.log(`${q.id}: expected ${e.server}/${e.tool} is not in the corpus`); problems++; continue; }
      const ts = stems(toolText(tool));
      if ([...qs].some(w => ts.has(w))) shared = true;
    }
    const flag = !shared;
    if (q.noSharedWord !== flag) { changed++; if (checkOnly) console.log(`${q.id}: noSharedWord should be ${flag}`); }
    q.noSharedWord = flag;
    if (flag) synonyms++;
  }
  console.log(`${path.basename(file)}: ${doc.queries.length} queries, ${synonyms} share no word with their tool, ${problems} problems, ${changed} flags ${checkOnly ? 'wrong' : 'updated'}`);
  if (!checkOnly) {
    const lines = doc.queries.map(q => '    ' + JSON.stringify({ id: q.id, query: q.query, expected: q.expected, note: q.note, noSharedWord: q.noSharedWord }));
    const head = JSON.stringify({ about: doc.about }, null, 2).replace(/\n}$/, ',\n');
    fs.writeFileSync(file, head + '  "queries": [\n' + lines.join(',\n') + '\n  ]\n}\n');
  }
  process.exitCode = problems || (checkOnly && changed) ? 1 : 0;
}
