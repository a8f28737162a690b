// The bench partners' webhook endpoint: a local HTTPS server with the stack's certificate
// (the services trust its CA), answering 200 to every delivery after `answerAfterMs`. It
// records which orders reached order.settled, so a measurement can wait until the orders it
// placed are settled AND their webhooks delivered.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import path from 'node:path';
import { sleep } from '../../scripts/lib/processes.mjs';

const BODY_BYTES_MAX = 1024 * 1024;
const POLL_MS = 100;
const SETTLED_EVENT = 'order.settled';

export async function startReceiver(tlsDir, { answerAfterMs = 0 } = {}) {
  const settled = new Map(); // orderId → ms (Date.now()) when its order.settled arrived
  const counts = { deliveries: 0, byType: {} };
  const server = createServer({
    key: readFileSync(path.join(tlsDir, 'server-key.pem')), cert: readFileSync(path.join(tlsDir, 'server.pem')),
  }, (req, res) => {
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
        if (event.type === SETTLED_EVENT && event.data?.orderId && !settled.has(event.data.orderId)) settled.set(event.data.orderId, Date.now());
      } catch {
        // Not an event; answered all the same.
      }
      const answer = () => res.writeHead(200).end('ok');
      if (answerAfterMs > 0) setTimeout(answer, answerAfterMs);
      else answer();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `https://localhost:${port}/bench-webhooks`,
    counts,
    isSettled: (orderId) => settled.has(orderId),
    /** Waits until every order id has its order.settled delivered, at most timeoutMs; resolves to the ids still missing. */
    async waitSettled(orderIds, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let missing = orderIds.filter((id) => !settled.has(id));
      while (missing.length > 0 && Date.now() < deadline) {
        await sleep(POLL_MS);
        missing = missing.filter((id) => !settled.has(id));
      }
      return missing;
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
