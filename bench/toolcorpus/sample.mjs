#!/usr/bin/env node
// Picks tools of the corpus uniformly at random, for the second query set (queries-sampled.json).
//   node sample.mjs [seed] [count]     defaults: seed 2026, count 150
// Every (server, tool) of servers/*.json is listed in a stable order (server file name, then the
// server's own tool order); a seeded mulberry32 PRNG drives a partial Fisher-Yates shuffle, and the
// first `count` of the shuffle are printed in pick order, one "index server/tool" a line, after a
// header that gives the seed and the population. Same seed, same corpus: same output.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const seed = Number(process.argv[2] ?? 2026);
const count = Number(process.argv[3] ?? 150);
if (!Number.isInteger(seed) || !Number.isInteger(count) || count < 1) {
  console.error('usage: node sample.mjs [seed] [count]');
  process.exit(2);
}

// mulberry32: a small 32-bit PRNG, uniform in [0, 1).
function mulberry32(a) {
  return function () {
    a |= 0; a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const dir = path.join(here, 'servers');
const all = [];
for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.json')).sort()) {
  const s = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  for (const t of s.tools) all.push(`${s.name}/${t.name}`);
}
if (count > all.length) { console.error(`count ${count} exceeds the ${all.length} tools`); process.exit(2); }

const random = mulberry32(seed);
const order = all.map((_, i) => i);
for (let i = 0; i < count; i++) {
  const j = i + Math.floor(random() * (order.length - i));
  [order[i], order[j]] = [order[j], order[i]];
}
console.log(`# seed ${seed} (mulberry32), ${count} of ${all.length} tools, uniform without replacement`);
console.log('# pick index (0-based, in the stable listing: server file name, then server order) server/tool');
order.slice(0, count).forEach((idx, n) => console.log(`${String(n + 1).padStart(3)} ${String(idx).padStart(4)} ${all[idx]}`));
