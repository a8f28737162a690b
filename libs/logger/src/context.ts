import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line and every outgoing gRPC call of one request carries. */
export interface RequestContext {
  requestId?: string;
  partnerId?: string;
  /**
   * The platform identity (spiffe://platform/<name>, here the name) of the
   * process that made the gRPC call being served, from its certificate. Set by
   * the gRPC server only; an audit record names it as who acted.
   */
  caller?: string;
  /**
   * Partner requests: the API key (the credential's public identifier, never
   * its secret) that signed the request, set by the gateway once authenticated.
   */
  credentialKey?: string;
  /** Operator calls: the operator's name as the ops tool declares it (not authenticated; the caller identity is). */
  operator?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

export function currentContext(): RequestContext {
  return storage.getStore() ?? {};
}

/** Adds fields to the current context in place (e.g. the partner id once authenticated). */
export function enrichContext(fields: RequestContext): void {
  const store = storage.getStore();
  if (store) Object.assign(store, fields);
}
