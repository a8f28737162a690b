/**
 * One template per message kind, in code: the subject, and a plain-text body.
 * A code kind's body carries the code; a notice kind (an administrator added
 * or removed) carries none and refuses one, so a notice can never leak a code.
 * Each kind names the variables it requires; a missing one is a caller bug
 * refused as VALIDATION_FAILED (variables), never a blank.
 */
import { validationFailed } from '@platform/errors';
import type { MessageKind } from './message';

export interface RenderedMessage {
  subject: string;
  body: string;
}

interface Template {
  needsCode: boolean;
  variables: readonly string[];
  subject: (vars: Record<string, string>) => string;
  body: (code: string, vars: Record<string, string>) => string;
}

const FOOTER = 'If you did not expect this message, do not share the code: tell your security team and the service.';
const NOTICE_FOOTER = [
  'If you did not expect this change, tell your security team and the service at once: someone may hold your',
  "organisation's API credential. Revoke it, and remove any administrator you do not recognise.",
  'This message carries no code and nobody from the service will ask you for one.',
].join('\n');

/** A confirmation's body: what waits, then its code and when the code lapses. */
function confirmationBody(waiting: string, code: string, expiresAt: string): string {
  return [waiting, '', `Confirmation code: ${code}`, `It expires at ${expiresAt}.`, '', FOOTER].join('\n');
}

const TEMPLATES: Record<MessageKind, Template> = {
  wallet_approval: {
    needsCode: true,
    variables: ['chain', 'asset', 'address', 'expiresAt'],
    subject: () => 'Approve a new withdrawal address',
    body: (code, v) =>
      [
        `A new ${v.asset} withdrawal address on ${v.chain} was registered for your organisation:`,
        '',
        `  ${v.address}`,
        '',
        `Approval code: ${code}`,
        `It expires at ${v.expiresAt}. Give it to the person registering the address only if you recognise it.`,
        '',
        FOOTER,
      ].join('\n'),
  },
  transfer_confirmation: {
    needsCode: true,
    variables: ['amount', 'currency', 'destination', 'expiresAt'],
    subject: () => 'Confirm a KES transfer',
    body: (code, v) =>
      confirmationBody(
        `A transfer of ${v.amount} ${v.currency} to ${v.destination} is waiting for confirmation.`,
        code,
        v.expiresAt,
      ),
  },
  usdt_send_confirmation: {
    needsCode: true,
    variables: ['amount', 'address', 'expiresAt'],
    subject: () => 'Confirm a USDT send',
    body: (code, v) =>
      confirmationBody(`A send of ${v.amount} USDT to ${v.address} is waiting for confirmation.`, code, v.expiresAt),
  },
  batch_confirmation: {
    needsCode: true,
    variables: ['itemCount', 'expiresAt'],
    subject: () => 'Confirm a batch of KES transfers',
    body: (code, v) =>
      confirmationBody(`A batch of ${v.itemCount} transfers is waiting for confirmation.`, code, v.expiresAt),
  },
  administrator_added: {
    needsCode: false,
    variables: ['adminName', 'adminEmail', 'changedAt', 'receivesCodesFrom'],
    subject: () => 'An administrator was added to your organisation',
    body: (_code, v) =>
      [
        `${v.adminName} <${v.adminEmail}> was added as an administrator of your organisation at ${v.changedAt}.`,
        `They may receive approval and confirmation codes from ${v.receivesCodesFrom}. Until then no code goes to them,`,
        'and the last administrator who already receives codes cannot be removed.',
        '',
        NOTICE_FOOTER,
      ].join('\n'),
  },
  administrator_removed: {
    needsCode: false,
    variables: ['adminName', 'adminEmail', 'changedAt'],
    subject: () => 'An administrator was removed from your organisation',
    body: (_code, v) =>
      [
        `${v.adminName} <${v.adminEmail}> was removed as an administrator of your organisation at ${v.changedAt}.`,
        'Codes already sent to them no longer work, and they receive no new ones.',
        '',
        NOTICE_FOOTER,
      ].join('\n'),
  },
};

/** What stands in for the code in every stored body: the code itself is kept only for the sandbox outbox. */
export const CODE_PLACEHOLDER = '******';

/** Renders `kind`; throws VALIDATION_FAILED naming `code` (missing, or given to a notice) or `variables` when the template's needs are unmet. */
export function renderMessage(
  kind: MessageKind,
  code: string | undefined,
  variables: Record<string, string>,
): RenderedMessage {
  const template = TEMPLATES[kind];
  const bad: string[] = [];
  if (template.needsCode !== (code !== undefined)) bad.push('code');
  if (template.variables.some((name) => variables[name] === undefined || variables[name] === '')) bad.push('variables');
  if (bad.length > 0) throw validationFailed(bad);
  return { subject: template.subject(variables), body: template.body(code ?? '', variables) };
}
