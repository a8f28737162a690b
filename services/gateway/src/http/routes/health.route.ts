import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { Readiness, UpstreamHealth } from '../dependencies';
import type { OperationHandler } from './operation';

/** GET /v1/health: always 200; "degraded" when trading or ledger is not answering. */
export function healthHandler(deps: {
  upstreamHealth: UpstreamHealth;
  version: string;
}): OperationHandler<'getHealth'> {
  return async (_request, res) => {
    const status = await deps.upstreamHealth.status();
    res.status(200).json({ status, time: new Date().toISOString(), version: deps.version });
  };
}

/** GET /healthz: unauthenticated liveness and readiness for the stack scripts and Kubernetes. */
export function healthzHandler(readiness: Readiness): RequestHandler {
  return async (_req, res) => {
    if (!(await readiness.ready())) throw new AppError('SERVICE_UNAVAILABLE');
    res.status(200).json({ status: 'ok' });
  };
}
