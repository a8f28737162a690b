import { cpuMsBetween, parseStat, parseVmRssKiB, treePids, treeTicks } from './proc';

// Fields 3.. of a stat line: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
function statLine(pid: number, comm: string, ppid: number, [utime, stime, cutime, cstime]: number[]): string {
  return `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 1 0 12345 1000000 250 18446744073709551615`;
}

describe('/proc/<pid>/stat parsing', () => {
  it('reads pid, parent and the four CPU fields', () => {
    expect(parseStat(statLine(42, 'node', 1, [11, 22, 33, 44]))).toMatchObject({
      pid: 42,
      comm: 'node',
      state: 'S',
      ppid: 1,
      utime: 11,
      stime: 22,
      cutime: 33,
      cstime: 44,
      startTime: 12345,
    });
  });

  it('counts fields from the last parenthesis, so a command name with spaces and parentheses does not shift them', () => {
    const parsed = parseStat(statLine(7, 'postgres: platform svc_trading (idle) x)', 3, [5, 6, 7, 8]));
    expect(parsed).toMatchObject({
      pid: 7,
      comm: 'postgres: platform svc_trading (idle) x)',
      ppid: 3,
      utime: 5,
      stime: 6,
      cutime: 7,
      cstime: 8,
    });
  });

  it('refuses a line that is not a stat line', () => {
    expect(() => parseStat('nonsense')).toThrow('not a /proc stat line');
  });

  it('reads VmRSS in KiB, null when the status has none', () => {
    expect(parseVmRssKiB('Name:\tnode\nVmPeak:\t 900 kB\nVmRSS:\t   84512 kB\nThreads: 11\n')).toBe(84512);
    expect(parseVmRssKiB('Name:\tkworker\nThreads: 1\n')).toBeNull();
  });
});

describe('CPU of a process tree', () => {
  const records = [
    parseStat(statLine(100, 'postgres', 1, [50, 10, 200, 20])), // postmaster: 200 + 20 from reaped backends
    parseStat(statLine(101, 'postgres', 100, [30, 5, 0, 0])), // a live backend
    parseStat(statLine(102, 'postgres', 100, [7, 3, 0, 0])),
    parseStat(statLine(103, 'psql', 102, [1, 1, 4, 0])), // grandchild
    parseStat(statLine(200, 'beam.smp', 1, [900, 90, 0, 0])), // another tree
  ];

  it('finds the root and every descendant, not other trees', () => {
    expect(treePids(records, 100).sort()).toEqual([100, 101, 102, 103]);
    expect(treePids(records, 999)).toEqual([]);
  });

  it('adds own and reaped-children CPU of every live process once', () => {
    expect(treeTicks(records, 100)).toBe(50 + 10 + 200 + 20 + 30 + 5 + 7 + 3 + 1 + 1 + 4);
    expect(treeTicks(records, 999)).toBeNull();
  });

  it('keeps the CPU of a backend that exits between snapshots (it moves into the parent once reaped)', () => {
    const after = [
      parseStat(statLine(100, 'postgres', 1, [50, 10, 200 + 40, 20 + 9])), // 101 reaped with 40 + 9 (it used 10 + 4 more)
      parseStat(statLine(102, 'postgres', 100, [7, 3, 0, 0])),
      parseStat(statLine(103, 'psql', 102, [1, 1, 4, 0])),
    ];
    expect((treeTicks(after, 100) ?? 0) - (treeTicks(records, 100) ?? 0)).toBe(14);
  });

  it('turns tick snapshots into milliseconds per name, null where a process was missing', () => {
    expect(cpuMsBetween({ trading: 100, redis: null, ledger: 5 }, { trading: 150, redis: 3, ledger: 5 }, 100)).toEqual({
      trading: 500,
      redis: null,
      ledger: 0,
    });
  });
});
