#!/usr/bin/env node
// Prints the functions with the most self time in a V8 .cpuprofile (from `node --cpu-prof`,
// e.g. the gateway profile `BENCH_CPU_PROFILE=1 npm run bench` writes to bench/results/).
//   node bench/cpu-profile-top.mjs bench/results/CPU.<...>.cpuprofile [count] [--window=<from>-<to>] [--per=<n>]
// --window keeps only the samples taken between two CLOCK_MONOTONIC times in µs (what
// `process.hrtime.bigint() / 1000n` reads in any process of the machine, and what V8 stamps its
// samples with), so one load's part of a profile can be read apart from start-up and other loads
// (bench/pages-profile.mjs prints each load's window). --per divides every figure by a count
// (the load's requests) and prints µs per request instead of ms, idle time left out.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const COUNT_DEFAULT = 25;
const args = process.argv.slice(2);
const flag = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const [file, countText] = args.filter((arg) => !arg.startsWith('--'));
if (!file) throw new Error('usage: cpu-profile-top.mjs <file.cpuprofile> [count] [--window=<from>-<to>] [--per=<n>]');
const count = countText ? Number(countText) : COUNT_DEFAULT;
const [windowFromUs, windowToUs] = flag('window')?.split('-').map(Number) ?? [-Infinity, Infinity];
const per = flag('per') ? Number(flag('per')) : null;
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Each sample names the node that was on the CPU; time between samples is that node's self time.
const selfUs = new Map();
let sampledAtUs = profile.startTime;
for (let index = 0; index < profile.samples.length; index += 1) {
  sampledAtUs += profile.timeDeltas[index] ?? 0;
  if (sampledAtUs < windowFromUs || sampledAtUs > windowToUs) continue;
  const id = profile.samples[index];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
}
const idleIds = new Set(
  profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id),
);
const busyUs = [...selfUs.entries()].reduce((sum, [id, us]) => sum + (idleIds.has(id) ? 0 : us), 0);
const shown = (us, totalUs) =>
  per === null
    ? `${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms`
    : `${((100 * us) / busyUs).toFixed(1).padStart(5)}%  ${(us / per).toFixed(1).padStart(7)} µs/req`;

const byFunction = new Map();
let totalUs = 0;
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  totalUs += us;
  if (per !== null && idleIds.has(node.id)) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${path.relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
}
const top = [...byFunction.entries()].sort((left, right) => right[1] - left[1]).slice(0, count);
console.log(
  per === null
    ? `total sampled ${(totalUs / 1000).toFixed(0)} ms`
    : `busy ${(busyUs / per).toFixed(1)} µs per request (${per} requests, ${(busyUs / 1000).toFixed(0)} ms busy of ${(totalUs / 1000).toFixed(0)} ms sampled)`,
);
for (const [key, us] of top) console.log(`${shown(us, totalUs)}  ${key}`);

// The same self time grouped by package (node_modules/<name>), workspace or node internal.
const byPackage = new Map();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (per !== null && idleIds.has(node.id)) continue;
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
  console.log(`${shown(us, totalUs)}  ${group}`);
}
