/**
 * Who may call each notifier RPC (service identities, spiffe://platform/<name>),
 * enforced by @platform/grpc before any handler runs. Messages (they carry
 * one-time codes) are sent for the two services that issue codes; the sandbox
 * outbox is read through the gateway's sandbox route (it answers NOT_FOUND
 * unless the sandbox transport stored the messages). Amend an entry when a
 * caller starts or stops calling.
 */
import type { AccessTable } from '@platform/grpc';
import type { notifier } from '@platform/proto';

export const NOTIFIER_ACCESS = {
  NOTIFIER: { sendMessage: ['payouts', 'wallet-registry'] } satisfies AccessTable<typeof notifier.NotifierService>,
  SANDBOX: { listSandboxOutbox: ['gateway'] } satisfies AccessTable<typeof notifier.NotifierSandboxService>,
} as const;
