// Progress output: one line per step with its elapsed time, `✔ postgres started (0.3 s)`,
// or `✘ <step>: see <log>` followed by the log's last lines, since a CI reader cannot
// open the file.
import path from 'node:path';
import { tailLines } from './processes.mjs';

const FAILED_LOG_TAIL_LINES = 30;
const interactive = process.stdout.isTTY === true;

/** Thrown once a step has printed its failure; callers exit without printing it again. */
export class StepFailed extends Error {}

/** The title of the step in flight, shown after `… ` on a terminal. */
let inFlight = null;

/** A line of progress inside the step in flight (indented under it), e.g. one per package built. */
export function stepProgress(line) {
  if (interactive && inFlight) process.stdout.write('\r\x1b[K');
  console.log(`  ${line}`);
  if (interactive && inFlight) process.stdout.write(`… ${inFlight}`);
}

const seconds = (startedAtMs) => `${((Date.now() - startedAtMs) / 1000).toFixed(1)} s`;
const relative = (file) => path.relative(process.cwd(), file) || file;

function printLogTail(logFile) {
  for (const file of logFile.split(', ')) {
    const lines = tailLines(file, FAILED_LOG_TAIL_LINES);
    if (lines.length === 0) continue;
    console.error(`  ── last ${lines.length} lines of ${relative(file)}`);
    for (const line of lines) console.error(`  │ ${line}`);
  }
}

/**
 * Runs `action` under the label `title`. When `action` resolves to a string, that string
 * replaces the title on the ✔ line (e.g. "postgres already running").
 */
export async function step(title, action) {
  const startedAtMs = Date.now();
  inFlight = title;
  if (interactive) process.stdout.write(`… ${title}`);
  const clear = () => {
    inFlight = null;
    if (interactive) process.stdout.write('\r\x1b[K');
  };
  try {
    const result = await action();
    clear();
    console.log(`✔ ${typeof result === 'string' ? result : title} (${seconds(startedAtMs)})`);
    return result;
  } catch (error) {
    clear();
    if (error.logFile) {
      console.error(`✘ ${title}: see ${error.logFile.split(', ').map(relative).join(', ')}`);
      console.error(`  ${error.message.split('\n')[0]}`);
      printLogTail(error.logFile);
    } else {
      console.error(`✘ ${title}: ${error.message}`);
    }
    throw new StepFailed(title, { cause: error });
  }
}
