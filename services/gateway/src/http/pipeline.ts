/**
 * Request steps run one after another as Express' router runs middleware, without
 * its walk over a layer per step (a path match, parameter processing and promise
 * bookkeeping per layer, on every request): a step calls `next()` to go on; a
 * step that calls `next(error)`, throws, or returns a promise that rejects ends
 * in Express' error handler, as it would there. After the last step, `next()`
 * goes back to Express (the 404 and the error handler).
 */
import type { NextFunction, RequestHandler } from 'express';

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
