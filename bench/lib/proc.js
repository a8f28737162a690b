// CPU time and resident memory of processes and their descendants, from /proc. Parsing is
// pure (unit-tested); the readers are thin.
//
// CPU of a process tree: every live process of the tree counts its own utime + stime plus
// cutime + cstime (the CPU of the children it has reaped). A PostgreSQL backend that exits
// during a measurement is reaped by the postmaster, so its CPU moves into the postmaster's
// cutime/cstime and stays counted, exactly once.
'use strict';

const fs = require('node:fs');
const { execFileSync } = require('node:child_process');

const CLOCK_TICKS_DEFAULT = 100;

/**
 * One line of /proc/<pid>/stat. The command name sits in parentheses and may itself hold
 * spaces and parentheses, so the fields are counted from the LAST ')'.
 */
function parseStat(text) {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${text.slice(0, 80)}`);
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state); field n of proc(5) is fields[n - 3].
  const field = (n) => Number(fields[n - 3]);
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state: fields[0],
    ppid: field(4),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
    startTime: field(22),
  };
}

/** VmRSS in KiB from /proc/<pid>/status text; null when absent (a zombie, a kernel thread). */
function parseVmRssKiB(statusText) {
  const line = statusText.split('\n').find((entry) => entry.startsWith('VmRSS:'));
  return line ? Number(line.split(/\s+/)[1]) : null;
}

/** The pids of `rootPid` and every descendant, from parsed stat records. */
function treePids(records, rootPid) {
  const children = new Map();
  for (const record of records) {
    if (!children.has(record.ppid)) children.set(record.ppid, []);
    children.get(record.ppid).push(record.pid);
  }
  const found = [];
  const pending = records.some((record) => record.pid === rootPid) ? [rootPid] : [];
  while (pending.length > 0) {
    const pid = pending.pop();
    found.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** CPU clock ticks of a process tree (see the header); null when the root is gone. */
function treeTicks(records, rootPid) {
  const pids = new Set(treePids(records, rootPid));
  if (pids.size === 0) return null;
  return records
    .filter((record) => pids.has(record.pid))
    .reduce((sum, record) => sum + record.utime + record.stime + record.cutime + record.cstime, 0);
}

/** Per name, the CPU ms between two tick snapshots ({ name: ticks }); null where either is. */
function cpuMsBetween(before, after, clockTicksPerSecond) {
  return Object.fromEntries(
    Object.keys(after).map((name) => {
      const start = before[name];
      const end = after[name];
      return [
        name,
        start === null || start === undefined || end === null ? null : ((end - start) * 1000) / clockTicksPerSecond,
      ];
    }),
  );
}

// ---------------------------------------------------------------- readers

/** Every readable /proc/<pid>/stat, parsed (processes may end while we read: skipped). */
function readAllStats() {
  const records = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      records.push(parseStat(fs.readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return records;
}

/** { name: ticks of the tree rooted at pid } for { name: pid } (null pid → null). */
function cpuTicksSnapshot(roots) {
  const records = readAllStats();
  return Object.fromEntries(Object.entries(roots).map(([name, pid]) => [name, pid ? treeTicks(records, pid) : null]));
}

function rssKiB(pid) {
  try {
    return parseVmRssKiB(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}

let clockTicks = null;
/** USER_HZ (the unit of the stat CPU fields): `getconf CLK_TCK`, 100 where getconf is missing. */
function clockTicksPerSecond() {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || CLOCK_TICKS_DEFAULT;
    } catch {
      clockTicks = CLOCK_TICKS_DEFAULT;
    }
  }
  return clockTicks;
}

module.exports = {
  parseStat,
  parseVmRssKiB,
  treePids,
  treeTicks,
  cpuMsBetween,
  readAllStats,
  cpuTicksSnapshot,
  rssKiB,
  clockTicksPerSecond,
};
