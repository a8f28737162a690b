/**
 * One template per message kind, in code: the subject, and a plain-text body
 * that carries the code. Each kind names the variables it requires; a missing
 * one is a caller bug refused as VALIDATION_FAILED (variables), never a blank.
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

const TEMPLATES: Record<MessageKind, Template> = {
  wallet_approval: {
    needsCode: true,
    variables: ['chain', 'asset', 'address', 'expiresAt'],
    subject: () => 'Approve a new withdrawal address',
    body: (code, v) => [
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
    body: (code, v) => [
      `A transfer of ${v.amount} ${v.currency} to ${v.destination} is waiting for confirmation.`,
      '',
      `Confirmation code: ${code}`,
      `It expires at ${v.expiresAt}.`,
      '',
      FOOTER,
    ].join('\n'),
  },
  usdt_send_confirmation: {
    needsCode: true,
    variables: ['amount', 'address', 'expiresAt'],
    subject: () => 'Confirm a USDT send',
    body: (code, v) => [
      `A send of ${v.amount} USDT to ${v.address} is waiting for confirmation.`,
      '',
      `Confirmation code: ${code}`,
      `It expires at ${v.expiresAt}.`,
      '',
      FOOTER,
    ].join('\n'),
  },
  batch_confirmation: {
    needsCode: true,
    variables: ['itemCount', 'expiresAt'],
    subject: () => 'Confirm a batch of KES transfers',
    body: (code, v) => [
      `A batch of ${v.itemCount} transfers is waiting for confirmation.`,
      '',
      `Confirmation code: ${code}`,
      `It expires at ${v.expiresAt}.`,
      '',
      FOOTER,
    ].join('\n'),
  },
};

/** What stands in for the code in every stored body: the code itself is kept only for the sandbox outbox. */
export const CODE_PLACEHOLDER = '******';

/** Renders `kind`; throws VALIDATION_FAILED naming `code` or `variables` when the template's needs are unmet. */
export function renderMessage(kind: MessageKind, code: string | undefined, variables: Record<string, string>): RenderedMessage {
  const template = TEMPLATES[kind];
  const bad: string[] = [];
  if (template.needsCode && code === undefined) bad.push('code');
  if (template.variables.some((name) => variables[name] === undefined || variables[name] === '')) bad.push('variables');
  if (bad.length > 0) throw validationFailed(bad);
  return { subject: template.subject(variables), body: template.body(code ?? '', variables) };
}
