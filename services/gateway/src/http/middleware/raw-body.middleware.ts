import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@platform/errors';
import { BODY_BYTES_MAX } from '../../config';
import { setRawBody } from '../locals';

/**
 * Past the limit, the rest of a body is still read and dropped, up to this
 * bound, so the client finishes sending and reads its 413 instead of a reset
 * connection. Beyond it the connection is closed after the 413.
 */
export const BODY_DRAIN_BYTES_MAX = 1024 * 1024;

export type BodyRead = { kind: 'body'; body: Buffer } | { kind: 'too_large'; drained: boolean } | { kind: 'aborted' };

function declaredLength(header: string | undefined): number | null {
  return header !== undefined && /^\d{1,16}$/.test(header) ? Number(header) : null;
}

export function expectsContinue(req: IncomingMessage): boolean {
  return req.headers.expect?.toLowerCase() === '100-continue';
}

/** True when Content-Length alone already exceeds `limitBytes`. */
export function declaresMoreThan(req: IncomingMessage, limitBytes: number): boolean {
  const declared = declaredLength(req.headers['content-length']);
  return declared !== null && declared > limitBytes;
}

const NO_BODY = Buffer.alloc(0);
const EMPTY_BODY: BodyRead = { kind: 'body', body: NO_BODY };

/**
 * True when the request has no body by its framing: neither Content-Length nor
 * Transfer-Encoding (a request without them has none), or Content-Length 0.
 * Nothing needs reading then (most GETs): no listeners, no wait for 'end'.
 */
export function hasNoBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

/** Reads at most `limitBytes` of the body, counting what actually arrives, not only Content-Length. */
export function readBody(
  req: IncomingMessage,
  limitBytes: number,
  drainBytesMax = BODY_DRAIN_BYTES_MAX,
): Promise<BodyRead> {
  if (hasNoBody(req)) return Promise.resolve(EMPTY_BODY);
  return new Promise((resolve) => {
    const declared = declaredLength(req.headers['content-length']);
    if (declared !== null && declared > drainBytesMax) {
      resolve({ kind: 'too_large', drained: false });
      return;
    }
    let tooLarge = declared !== null && declared > limitBytes;
    // The client waits for 100 Continue, which the server withholds for a body this large
    // (see http-server.ts): there is nothing to drain.
    if (tooLarge && expectsContinue(req)) {
      resolve({ kind: 'too_large', drained: false });
      return;
    }
    let receivedBytes = 0;
    const chunks: Buffer[] = [];
    const finish = (result: BodyRead) => {
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('aborted', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      receivedBytes += chunk.length;
      if (receivedBytes > drainBytesMax) {
        req.pause();
        finish({ kind: 'too_large', drained: false });
        return;
      }
      if (receivedBytes > limitBytes) tooLarge = true;
      if (tooLarge) chunks.length = 0;
      else chunks.push(chunk);
    };
    const onEnd = () =>
      finish(
        tooLarge ? { kind: 'too_large', drained: true } : { kind: 'body', body: Buffer.concat(chunks, receivedBytes) },
      );
    const onAbort = () => finish({ kind: 'aborted' });
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('aborted', onAbort);
  });
}

/**
 * Second step: the raw body, at most 64 KiB (413 PAYLOAD_TOO_LARGE beyond),
 * kept as the exact bytes received, because the request signature covers
 * exactly those bytes. Nothing parses it here. A request without a body (most
 * GETs) goes on at once, without a promise or a later turn of the loop.
 */
export function rawBodyMiddleware(): RequestHandler {
  return (req, res, next) => {
    if (!hasNoBody(req)) return readAndKeep(req, res, next);
    setRawBody(res, NO_BODY);
    next();
    return undefined;
  };
}

async function readAndKeep(req: Request, res: Response, next: NextFunction): Promise<void> {
  const read = await readBody(req, BODY_BYTES_MAX);
  if (read.kind === 'aborted') {
    // The client went away mid-body; there is nobody to answer.
    req.socket.destroy();
    return;
  }
  if (read.kind === 'too_large') {
    if (!read.drained) res.setHeader('Connection', 'close');
    throw new AppError('PAYLOAD_TOO_LARGE');
  }
  setRawBody(res, read.body);
  next();
}
