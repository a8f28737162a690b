import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadTestStack } from './stack';
import { waitFor } from './wait';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAtMs: number;
  /** The sender's TCP port: tells which local process sent it. */
  remotePort: number;
}

export interface HttpsReceiver {
  /** Unique to this receiver: a port the OS hands out again never makes it another test's endpoint. */
  url: string;
  /** The path of `url`; only requests under it are recorded. */
  path: string;
  requests: ReceivedRequest[];
  /** Status (and optional extra headers) to answer with from now on. */
  respondWith(status: number, headers?: Record<string, string>): void;
  /** While on, requests are recorded but not answered (a hanging endpoint); off answers those held. */
  hold(on: boolean): void;
  /** Answers every request only after this many ms (a slow but working endpoint). */
  delayResponses(ms: number): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

const BODY_BYTES_MAX = 1024 * 1024;

export interface HttpsReceiverOptions {
  /** Folder of the certificate to serve (server.pem, server-key.pem); the test stack's own by default. */
  tlsDir?: string;
}

/**
 * A local HTTPS endpoint with the test stack's certificate (trusted by the services through NODE_EXTRA_CA_CERTS), or another one.
 *
 * Its path is unique: a closed receiver's port may be handed to the next one, and the webhook worker keeps retrying the
 * old partner's endpoint there. Those retries are answered 404 and never recorded, so each test sees only its own partner's
 * deliveries.
 */
export async function startHttpsReceiver(options: HttpsReceiverOptions = {}): Promise<HttpsReceiver> {
  const tlsDir = options.tlsDir ?? loadTestStack().tlsDir;
  const path = `/webhooks/${randomUUID()}`;
  const requests: ReceivedRequest[] = [];
  let status = 200;
  let extraHeaders: Record<string, string> = {};
  let holding = false;
  let delayMs = 0;
  const held: Array<() => void> = [];
  const server = createServer(
    { key: readFileSync(join(tlsDir, 'server-key.pem')), cert: readFileSync(join(tlsDir, 'server.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= BODY_BYTES_MAX) chunks.push(chunk);
      });
      req.on('end', () => {
        if (!(req.url ?? '').startsWith(path)) {
          res.writeHead(404).end('not this receiver');
          return;
        }
        requests.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAtMs: Date.now(),
          remotePort: req.socket.remotePort ?? 0,
        });
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(status, extraHeaders);
          res.end('ok');
        };
        if (holding) held.push(answer);
        else if (delayMs > 0) setTimeout(answer, delayMs);
        else answer();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}${path}`,
    path,
    requests,
    respondWith(nextStatus, headers = {}) {
      status = nextStatus;
      extraHeaders = headers;
    },
    hold(on) {
      holding = on;
      if (!on) held.splice(0).forEach((answer) => answer());
    },
    delayResponses(ms) {
      delayMs = ms;
    },
    waitForRequests(count, timeoutMs = 15_000) {
      return waitFor(() => (requests.length >= count ? requests.slice(0, count) : undefined), {
        timeoutMs,
        what: `${count} webhook request(s)`,
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
