#!/usr/bin/env node
// Prints the functions with the most self time in a V8 .cpuprofile (from `node --cpu-prof`,
// e.g. the gateway profile `BENCH_CPU_PROFILE=1 npm run bench` writes to bench/results/).
//   node bench/cpu-profile-top.mjs bench/results/CPU.<...>.cpuprofile [count]
import { readFileSync } from 'node:fs';
import path from 'node:path';

const COUNT_DEFAULT = 25;
const [file, countText] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-top.mjs <file.cpuprofile> [count]');
const count = countText ? Number(countText) : COUNT_DEFAULT;
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Each sample names the node that was on the CPU; time between samples is that node's self time.
const selfUs = new Map();
for (let index = 0; index < profile.samples.length; index += 1) {
  const id = profile.samples[index];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
}
const byFunction = new Map();
let totalUs = 0;
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  totalUs += us;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${path.relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
}
const top = [...byFunction.entries()].sort((left, right) => right[1] - left[1]).slice(0, count);
console.log(`total sampled ${(totalUs / 1000).toFixed(0)} ms`);
for (const [key, us] of top)
  console.log(`${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);

// The same self time grouped by package (node_modules/<name>), workspace or node internal.
const byPackage = new Map();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  const url = node.callFrame.url ?? '';
  const match = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/) ?? url.match(/\/(services|libs)\/([^/]+)\//);
  const group = match
    ? match[2] && match[1] !== undefined && !url.includes('node_modules')
      ? `${match[1]}/${match[2]}`
      : match[1]
    : url.startsWith('node:')
      ? 'node internals'
      : node.callFrame.functionName.startsWith('(')
        ? node.callFrame.functionName
        : 'native';
  byPackage.set(group, (byPackage.get(group) ?? 0) + us);
}
console.log('\nby package:');
for (const [group, us] of [...byPackage.entries()].sort((left, right) => right[1] - left[1]).slice(0, count)) {
  console.log(`${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${group}`);
}
