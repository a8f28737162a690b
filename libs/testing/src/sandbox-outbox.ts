/**
 * Reading a code the way a sandbox partner does: the service sends approval and
 * confirmation codes a moment after the request that asks for one, and the
 * sandbox outbox (GET /v1/sandbox/outbox, newest first) is the only place they
 * can be read. Used by the integration specs (through PartnerHttpClient.sdk,
 * which records every code it sees for the log scan) and by `npm run demo`
 * (scripts/demo.mjs loads the built file), so both poll the same way.
 */
import type { OutboxEntry, PartnerClient } from '@platform/sdk';
import { waitFor } from './wait';

/** Codes are sent within the request or just after it; this is ample on a loaded test machine. */
export const SANDBOX_CODE_WAIT_MS = 30_000;
const SANDBOX_CODE_POLL_MS = 200;

export interface SandboxCodeOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/** The newest outbox message about `subjectId` that carries a code, once there is one. */
export function sandboxCodeMessage(
  sdk: Pick<PartnerClient, 'sandbox'>,
  subjectId: string,
  options: SandboxCodeOptions = {},
): Promise<OutboxEntry> {
  return waitFor(
    async () => (await sdk.sandbox.outbox()).find((message) => message.subjectId === subjectId && message.code),
    {
      timeoutMs: options.timeoutMs ?? SANDBOX_CODE_WAIT_MS,
      intervalMs: options.intervalMs ?? SANDBOX_CODE_POLL_MS,
      what: `the code for ${subjectId}`,
    },
  );
}

/** The newest code sent about `subjectId`, once there is one. */
export async function sandboxCode(
  sdk: Pick<PartnerClient, 'sandbox'>,
  subjectId: string,
  options: SandboxCodeOptions = {},
): Promise<string> {
  return (await sandboxCodeMessage(sdk, subjectId, options)).code!;
}
