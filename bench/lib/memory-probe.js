// Preloaded into a measured process (`node --require bench/lib/memory-probe.js …`) with
// MEMORY_PROBE_FILE set: every MEMORY_PROBE_INTERVAL_MS (250, the bench's memory sampling) it
// appends one JSON line of what the process's memory is made of as Node and V8 see it, so
// the harness can split a resident peak into the JavaScript heap (by space) and the rest.
'use strict';

const { appendFileSync } = require('node:fs');
const v8 = require('node:v8');

const file = process.env.MEMORY_PROBE_FILE;
const intervalMs = Number(process.env.MEMORY_PROBE_INTERVAL_MS ?? 250);

function sample() {
  const usage = process.memoryUsage();
  const spaces = {};
  for (const space of v8.getHeapSpaceStatistics())
    spaces[space.space_name] = {
      size: space.space_size,
      used: space.space_used_size,
      physical: space.physical_space_size,
    };
  const heap = v8.getHeapStatistics();
  appendFileSync(
    file,
    `${JSON.stringify({
      atMs: Date.now(),
      rss: usage.rss,
      heapTotal: usage.heapTotal,
      heapUsed: usage.heapUsed,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      heapPhysical: heap.total_physical_size,
      mallocedMemory: heap.malloced_memory,
      peakMallocedMemory: heap.peak_malloced_memory,
      spaces,
    })}\n`,
  );
}

if (file) setInterval(sample, intervalMs).unref();
