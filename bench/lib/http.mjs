// Signed partner requests over keep-alive node:http connections: the load generator shares
// the machine with the stack, so it uses the cheapest client Node has (no fetch layer).
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { signedRequestHeaders } = require('@platform/crypto');

export const REQUEST_TIMEOUT_MS = 30_000;

/** A keep-alive agent with at most `sockets` connections (one per client that uses it). */
export const keepAliveAgent = (sockets) => new http.Agent({ keepAlive: true, maxSockets: sockets });

/** One request; resolves to { status, text } (a transport error or timeout rejects). */
export function httpRequest(agent, url, { method = 'GET', headers = {}, body, timeoutMs = REQUEST_TIMEOUT_MS }) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent, timeout: timeoutMs }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`${method} ${url}: no answer in ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** A partner's signed requests through the gateway, each with its own nonce and timestamp. */
export class PartnerClient {
  constructor(gatewayUrl, credentials, agent) {
    this.gatewayUrl = gatewayUrl;
    this.credentials = credentials;
    this.agent = agent;
  }

  async send(method, pathAndQuery, body) {
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers = signedRequestHeaders(this.credentials, { method, pathAndQuery, body: text });
    if (body !== undefined)
      Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    const answer = await httpRequest(this.agent, `${this.gatewayUrl}${pathAndQuery}`, {
      method,
      headers,
      body: body === undefined ? undefined : text,
    });
    let parsed;
    try {
      parsed = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      parsed = answer.text;
    }
    return { status: answer.status, body: parsed };
  }

  get(pathAndQuery) {
    return this.send('GET', pathAndQuery);
  }

  post(pathAndQuery, body) {
    return this.send('POST', pathAndQuery, body);
  }

  /** The request, or an error naming it when the status is not `expected`. */
  async expect(method, pathAndQuery, body, expected) {
    const answer = await this.send(method, pathAndQuery, body);
    if (answer.status !== expected)
      throw new Error(`${method} ${pathAndQuery}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }
}

/**
 * Each request signed afresh, for autocannon (GET, or POST with a JSON body), taking the
 * senders ({ credentials, path }) in turn: one partner's rate limit (at most 100,000 a
 * minute) must not cap a load that several partners share.
 */
export function autocannonRequests(senders, method, body) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  let next = 0;
  return [
    {
      method,
      path: senders[0].path,
      ...(text === undefined ? {} : { body: text }),
      setupRequest: (request) => {
        const { credentials, path } = senders[next % senders.length];
        next += 1;
        return {
          ...request,
          path,
          headers: {
            ...request.headers,
            ...(text === undefined ? {} : { 'content-type': 'application/json' }),
            ...signedRequestHeaders(credentials, { method, pathAndQuery: path, body: text ?? '' }),
          },
        };
      },
    },
  ];
}
