// The bench partners' webhook endpoint: a local HTTPS server with the stack's certificate
// (the services trust its CA), answering 200 to every delivery after `answerAfterMs`. It
// records which orders (and transfers) reached their final event, so a measurement can wait
// until what it placed is settled AND its webhooks delivered.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import path from 'node:path';
import { sleep } from '../../scripts/lib/processes.mjs';

const BODY_BYTES_MAX = 1024 * 1024;
const POLL_MS = 100;
const FINAL_EVENTS = new Set([
  'order.settled',
  'order.rejected',
  'order.expired',
  'transfer.settled',
  'transfer.failed',
]);

export async function startReceiver(tlsDir, { answerAfterMs = 0 } = {}) {
  const ended = new Map(); // orderId or transferId → the final event's type
  const counts = { deliveries: 0, byType: {} };
  const server = createServer(
    {
      key: readFileSync(path.join(tlsDir, 'server-key.pem')),
      cert: readFileSync(path.join(tlsDir, 'server.pem')),
    },
    (req, res) => {
      const chunks = [];
      let size = 0;
      req.on('data', (chunk) => {
        size += chunk.length;
        if (size <= BODY_BYTES_MAX) chunks.push(chunk);
      });
      req.on('end', () => {
        counts.deliveries += 1;
        try {
          const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          counts.byType[event.type] = (counts.byType[event.type] ?? 0) + 1;
          const subjectId = event.data?.orderId ?? event.data?.transferId;
          if (FINAL_EVENTS.has(event.type) && subjectId && !ended.has(subjectId)) ended.set(subjectId, event.type);
        } catch {
          // Not an event; answered all the same.
        }
        const answer = () => res.writeHead(200).end('ok');
        if (answerAfterMs > 0) setTimeout(answer, answerAfterMs);
        else answer();
      });
    },
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `https://localhost:${port}/bench-webhooks`,
    counts,
    /** The final event's type of each order (or transfer) that reached one, e.g. { 'order.settled': 790 }. */
    endings(orderIds) {
      const counts = {};
      for (const id of orderIds) if (ended.has(id)) counts[ended.get(id)] = (counts[ended.get(id)] ?? 0) + 1;
      return counts;
    },
    /** Waits until every order (or transfer) id has its final event delivered, at most timeoutMs; resolves to the ids still missing. */
    async waitEnded(orderIds, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let missing = orderIds.filter((id) => !ended.has(id));
      while (missing.length > 0 && Date.now() < deadline) {
        await sleep(POLL_MS);
        missing = missing.filter((id) => !ended.has(id));
      }
      return missing;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
