/**
 * What the notifier sends: one message per idempotency key, of a known kind,
 * to one e-mail address, about one subject. Checked here once, so transports
 * and templates can trust their input.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';

// The partner contract states the kinds (the sandbox outbox shows them); its light module loads no zod.
import { MESSAGE_KINDS, type MessageKind } from '@platform/openapi/dist/contract/statuses';

export { MESSAGE_KINDS, type MessageKind };

/** Notices to every administrator of a change to the administrators: never a code. */
export const NOTICE_MESSAGE_KINDS = [
  'administrator_added',
  'administrator_removed',
] as const satisfies readonly MessageKind[];
type NoticeMessageKind = (typeof NOTICE_MESSAGE_KINDS)[number];
/** Kinds whose message carries a one-time code: every other kind. */
export const CODE_MESSAGE_KINDS: readonly Exclude<MessageKind, NoticeMessageKind>[] = MESSAGE_KINDS.filter(
  (kind): kind is Exclude<MessageKind, NoticeMessageKind> =>
    !(NOTICE_MESSAGE_KINDS as readonly string[]).includes(kind),
);

export const IDEMPOTENCY_KEY_LENGTH_MAX = 200;
export const RECIPIENT_LENGTH_MAX = 254;
export const VARIABLES_COUNT_MAX = 20;
export const VARIABLE_VALUE_LENGTH_MAX = 500;
const SUBJECT_TYPE = /^[a-z_]{1,40}$/;
const CODE = /^\d{6}$/;
// The sender already applied its own rule (e.g. the partner's domain); here only a sane, header-safe address.
const RECIPIENT = /^[\x21-\x3f\x41-\x7e]+@[A-Za-z0-9.-]+$/;
const VARIABLE_NAME = /^[A-Za-z][A-Za-z0-9]{0,39}$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export interface MessageRequest {
  idempotencyKey: string;
  partnerId: string;
  kind: MessageKind;
  recipient: string;
  subjectType: string;
  subjectId: string;
  code?: string;
  variables: Record<string, string>;
}

export function isMessageKind(value: unknown): value is MessageKind {
  return typeof value === 'string' && (MESSAGE_KINDS as readonly string[]).includes(value);
}

function variablesValid(variables: Record<string, string>): boolean {
  const entries = Object.entries(variables);
  return (
    entries.length <= VARIABLES_COUNT_MAX &&
    entries.every(
      ([name, value]) => VARIABLE_NAME.test(name) && value.length <= VARIABLE_VALUE_LENGTH_MAX && !CONTROL.test(value),
    )
  );
}

/** Validates a send request; throws VALIDATION_FAILED naming every bad field. */
export function parseMessageRequest(input: Omit<MessageRequest, 'kind'> & { kind: string }): MessageRequest {
  const bad: string[] = [];
  const key = input.idempotencyKey;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_LENGTH_MAX || CONTROL.test(key)) bad.push('idempotencyKey');
  if (!isUuid(input.partnerId)) bad.push('partnerId');
  if (!isMessageKind(input.kind)) bad.push('kind');
  if (input.recipient.length > RECIPIENT_LENGTH_MAX || !RECIPIENT.test(input.recipient)) bad.push('recipient');
  if (!SUBJECT_TYPE.test(input.subjectType)) bad.push('subjectType');
  if (!isUuid(input.subjectId)) bad.push('subjectId');
  if (input.code !== undefined && !CODE.test(input.code)) bad.push('code');
  if (!variablesValid(input.variables)) bad.push('variables');
  if (bad.length > 0) throw validationFailed(bad);
  return { ...input, kind: input.kind as MessageKind };
}
