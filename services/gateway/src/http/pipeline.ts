/**
 * Request steps run one after another as Express' router runs middleware, without
 * its walk over a layer per step (a path match, parameter processing and promise
 * bookkeeping per layer, on every request): a step calls `next()` to go on; a
 * step that calls `next(error)`, throws, or returns a promise that rejects ends
 * in the error handler, as it would there. After the last step, `next()` goes
 * back to whoever ran the steps (dispatchWithoutRouter below: the 404).
 */
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { newRequestLocals } from './locals';

export function inOrder(steps: readonly RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let index = 0;
    const fail = (error: unknown) => done(error ?? new Error('rejected promise'));
    const next: NextFunction = (error?: unknown) => {
      if (error !== undefined && error !== null) {
        done(error);
        return;
      }
      const step = steps[index];
      index += 1;
      if (step === undefined) {
        done();
        return;
      }
      try {
        const result: unknown = step(req, res, next);
        if (result instanceof Promise) result.catch(fail);
      } catch (error) {
        fail(error);
      }
    };
    next();
  };
}

/**
 * The app's request entry without Express' router: Express' `app.handle` gives req
 * and res their Express methods and then walks its router, which for this app is
 * one layer of steps (above), the 404 and the error handler; the walk allocated
 * more per request (closures, a parameter record, path parsing, a final handler)
 * than most of the steps. This entry does what `app.handle` and that router did
 * for these layers, in the same order: the request and response prototypes,
 * `res.locals` (the gateway's fixed-shape record, locals.ts), `req.originalUrl` as sent and `req.baseUrl` empty (nothing is
 * mounted), then `steps`; a step's error (a `next(error)`, a throw, a rejected
 * promise) goes to `onError`, and a request no step answered to `onError` with
 * `notFoundError()`. Should `onError` itself throw, the connection is cut (the
 * router handed that to Express' final handler, which answered an HTML 500).
 */
export function dispatchWithoutRouter(
  app: Express,
  steps: RequestHandler,
  onError: ErrorRequestHandler,
  notFoundError: () => unknown,
): void {
  const handle = (req: Request, res: Response): void => {
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    if (!res.locals) res.locals = newRequestLocals();
    req.originalUrl = req.url;
    req.baseUrl = '';
    const answerError = (error: unknown) => {
      try {
        onError(error, req, res, cutConnection(res));
      } catch {
        cutConnection(res)();
      }
    };
    steps(req, res, (error?: unknown) => answerError(error ?? notFoundError()));
  };
  Object.assign(app, { handle });
}

function cutConnection(res: Response): NextFunction {
  return () => {
    res.destroy();
  };
}
