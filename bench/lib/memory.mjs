// Resident memory (VmRSS) of every service: once when the stack is idle, then sampled every
// SAMPLE_INTERVAL_MS for the rest of the run, keeping each service's peak.
import { rssKiB } from './proc.js';

const SAMPLE_INTERVAL_MS = 250;

export function startMemorySampler(pids) {
  const idleKiB = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid ? rssKiB(pid) : null]));
  const peakKiB = { ...idleKiB };
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const now = pid ? rssKiB(pid) : null;
      if (now !== null) peakKiB[name] = Math.max(peakKiB[name] ?? 0, now);
    }
  };
  const timer = setInterval(sample, SAMPLE_INTERVAL_MS);
  return {
    idleKiB,
    peakKiB,
    stop() {
      clearInterval(timer);
      sample();
    },
  };
}
