/**
 * Request bodies and query strings of the partner plane, as zod schemas. The
 * gateway validates with them (a refusal names every offending field) and the
 * API reference is derived from them. Where a service decides a field's content
 * (a transfer's rail and account formats, an administrator's e-mail domain),
 * the schema bounds the field's shape and the service answers the precise
 * rule with the same `Validation failed on: <field>` refusal; the field's
 * description states that rule.
 */
import { parseDecimal, RATE_SCALE } from '@platform/money';
import { z } from 'zod';
import { documented } from './documentation';
import {
  BATCH_STATUSES,
  COLLECTION_STATUSES,
  CONFIRMABLE_STATUSES,
  MOBILE_MONEY_PUSH_STATUSES,
  ORDER_STATUSES,
} from './statuses';
import {
  KES_AMOUNT_INPUT,
  KEY_CHARACTERS,
  RATE_INPUT,
  resourceId,
  SIX_DIGIT_CODE,
  SOMETHING_VISIBLE,
  text,
  TRON_ADDRESS_INPUT,
  TX_HASH_INPUT,
  USD_AMOUNT_INPUT,
  USDT_AMOUNT_INPUT,
  visibleText,
} from './fields';

const named = <S extends z.ZodTypeAny>(schema: S, description: string): S => documented(schema, { description });

// ---------------------------------------------------------------- quotes

export const quoteRequestSchema = named(
  z
    .object({
      side: z.enum(['buy', 'sell']).describe('`buy`: KES in, USDT out; `sell`: USDT in, KES out'),
      kesAmount: KES_AMOUNT_INPUT.optional(),
      usdtAmount: USDT_AMOUNT_INPUT.optional(),
    })
    .strict(),
  'Exactly one of kesAmount and usdtAmount',
);

/** Exactly one of the two amounts; both or neither names both. */
export function exactlyOneAmount(body: Record<string, unknown>): string[] {
  const hasKes = body.kesAmount !== undefined;
  const hasUsdt = body.usdtAmount !== undefined;
  return hasKes === hasUsdt ? ['kesAmount', 'usdtAmount'] : [];
}
export const EXACTLY_ONE_AMOUNT_SCHEMA = { oneOf: [{ required: ['kesAmount'] }, { required: ['usdtAmount'] }] };

// ---------------------------------------------------------------- orders

const PARTNER_REFERENCE_LENGTH_MAX = 200;
const orderReference = text(PARTNER_REFERENCE_LENGTH_MAX)
  .min(1)
  .describe('Your reference, unique per order: the same one again answers the original order (retry-safe)');
const quoteId = resourceId().describe(
  'The quoteId of an unexpired quote of the same side; an unknown one answers 404 QUOTE_NOT_FOUND',
);

export const buyOrderSchema = named(
  z
    .object({
      quoteId,
      partnerReference: orderReference,
      expectedUsdtAmount: USDT_AMOUNT_INPUT.optional().describe(
        "Asserts the quote's usdtAmount (it does not set it): a different value answers 409 EXPECTED_AMOUNT_MISMATCH",
      ),
      walletId: resourceId()
        .optional()
        .describe('Pay-in buys: the active wallet the USDT is delivered to; refused from a debit-first partner'),
      paymentRail: z
        .enum(['mobile_money'])
        .optional()
        .describe('Pay-in buys: the rail the KES is paid on; refused from a debit-first partner'),
    })
    .strict(),
  "A buy of USDT with KES at a quote's rate",
);

export const sellOrderSchema = named(
  z
    .object({
      quoteId,
      partnerReference: orderReference,
      payoutAccountId: resourceId().describe(
        "An active payout destination's id (GET /v1/payout-destinations); an unknown one answers 404 PAYOUT_ACCOUNT_NOT_FOUND",
      ),
    })
    .strict(),
  "A sell of USDT for KES at a quote's rate",
);

export const attachTxHashSchema = named(z.object({ txHash: TX_HASH_INPUT }).strict(), "The deposit's transaction hash");

// ---------------------------------------------------------------- funding

const PHONE_LENGTH_MAX = 32;

export const mobileMoneyPushSchema = named(
  z
    .object({
      phone: text(PHONE_LENGTH_MAX)
        .min(1)
        .describe(
          "The payer's Kenyan mobile-money number (07XXXXXXXX, 01XXXXXXXX or with 254); the service checks the number and names `phone` when it is not one",
        ),
      amount: KES_AMOUNT_INPUT,
    })
    .strict(),
  "A payment prompt to a payer's handset",
);

// ---------------------------------------------------------------- administrators and wallets

const EMAIL_LENGTH_MAX = 254;
const ADMIN_NAME_LENGTH_MAX = 200;
const WALLET_LABEL_LENGTH_MAX = 100;

export const adminRequestSchema = named(
  z
    .object({
      email: z
        .string()
        .min(1)
        .max(EMAIL_LENGTH_MAX)
        .regex(/^[^@\s]+@[^@\s]+$/)
        .describe(
          "An address on exactly the partner's configured domain (no subdomains); another domain answers 400 naming `email`",
        ),
      name: z
        .string()
        .min(1)
        .max(ADMIN_NAME_LENGTH_MAX)
        .regex(SOMETHING_VISIBLE)
        .describe("The person's name; control characters are refused (400 naming `name`)"),
    })
    .strict(),
  'A person who receives approval and confirmation codes',
);

export const walletRequestSchema = named(
  z
    .object({
      chain: z.literal('tron'),
      asset: z.literal('USDT'),
      address: TRON_ADDRESS_INPUT,
      label: text(WALLET_LABEL_LENGTH_MAX).optional().describe('Your own name for the address'),
    })
    .strict(),
  'A withdrawal address to register',
);

export const walletConfirmSchema = named(
  z.object({ otp: SIX_DIGIT_CODE }).strict(),
  "The administrator's 6-digit code",
);

// ---------------------------------------------------------------- transfers, sends and confirmations

/** Generous shape bounds: payouts checks the content precisely, per item in a batch. */
const TRANSFER_FIELD_LENGTH_MAX = 200;
const transferText = (description: string) => text(TRANSFER_FIELD_LENGTH_MAX).describe(description);
const IDEMPOTENCY_KEY_RULE = '1-128 of `A-Z a-z 0-9 . _ : -`';
const PARTNER_REFERENCE_RULE = '1-128 printable characters; defaults to idempotencyKey';
export const BATCH_ITEMS_MAX = 20;

export const transferRequestSchema = named(
  z
    .object({
      rail: transferText('`mobile_money`, or a bank rail: `pesalink`, `rtgs`, `eft`'),
      destination: z
        .object({
          accountNumber: transferText(
            'mobile_money: a Kenyan mobile number (2547XXXXXXXX, 2541XXXXXXXX or a local form); bank rails: 6-20 digits',
          ),
          accountName: transferText(
            "The beneficiary's name as the account holds it, 1-100 printable characters; verified where the rail supports it",
          ),
          bankCode: transferText('Bank rails only (2-11 digits); refused on mobile_money').optional(),
        })
        .strict(),
      amount: z
        .object({
          currency: transferText('`KES`'),
          value: transferText('A positive KES amount, a decimal string of at most 2 decimals'),
        })
        .strict(),
      idempotencyKey: transferText(
        `Your key for this transfer: ${IDEMPOTENCY_KEY_RULE}. The same key and body again answers the original`,
      ),
      partnerReference: transferText(`Your reference: ${PARTNER_REFERENCE_RULE}`).optional(),
    })
    .strict(),
  "A KES transfer. The payouts service checks each field's content and names every offending one (in a batch, per item)",
);

export const transferBatchRequestSchema = named(
  z
    .object({
      idempotencyKey: transferText(`Your key for the batch: ${IDEMPOTENCY_KEY_RULE}`),
      items: z
        .array(transferRequestSchema)
        .min(1)
        .max(BATCH_ITEMS_MAX)
        .describe(
          `1-${BATCH_ITEMS_MAX} transfers, each with its own idempotencyKey; a refused item is reported and the others proceed`,
        ),
    })
    .strict(),
  'Several KES transfers confirmed by one code',
);

export const usdtSendRequestSchema = named(
  z
    .object({
      destinationWalletId: transferText("An active wallet's id (a UUID; another shape answers 400 naming it)"),
      usdtAmount: transferText(
        "A positive USDT amount, a decimal string of at most 6 decimals, within the service's minimum and per-send cap",
      ),
      idempotencyKey: transferText(`Your key for this send: ${IDEMPOTENCY_KEY_RULE}`),
      partnerReference: transferText(`Your reference: ${PARTNER_REFERENCE_RULE}`).optional(),
    })
    .strict(),
  "A USDT send to an active wallet. The payouts service checks each field's content and names every offending one",
);

export const confirmRequestSchema = named(
  z.object({ code: SIX_DIGIT_CODE }).strict(),
  'The confirmation code e-mailed to an administrator',
);

// ---------------------------------------------------------------- collections

const COLLECTION_TEXT_LENGTH_MAX = 200;

export const collectionRequestSchema = named(
  z
    .object({
      currency: z.literal('USD'),
      partnerReference: z
        .string()
        .max(64)
        .regex(KEY_CHARACTERS)
        .describe(
          'Your reconciliation key: 1-64 of `A-Z a-z 0-9 . _ : -`; the same one and body again answers the original',
        ),
      payerLabel: visibleText(COLLECTION_TEXT_LENGTH_MAX).describe('Who pays, for your records'),
      expectedAmount: USD_AMOUNT_INPUT.optional().describe(
        'Advisory: a deposit of another amount is still accepted and reported as a mismatch',
      ),
    })
    .strict(),
  'A USD collection to open',
);

const LIST_LIMIT_MAX = 100;
/** ISO 8601: a date, or a date and time with seconds optional, fraction optional, and Z or an offset. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
/** Date, optional time and offset, captured: year, month, day, hours, minutes, seconds, offset hours, offset minutes. */
const ISO_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2})))?$/;
const HOURS_MAX = 23;
const MINUTES_MAX = 59;
const SECONDS_MAX = 59;

/** JavaScript's Date rolls 2026-02-30 over into March; a partner's typo must be refused instead. */
function isRealCalendarTime(value: string): boolean {
  const parts = ISO_PARTS.exec(value);
  if (!parts) return false;
  const [year, month, day, hours, minutes, seconds, offsetHours, offsetMinutes] = parts
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part))) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  const dateReal = date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day;
  return (
    dateReal &&
    hours! <= HOURS_MAX &&
    minutes! <= MINUTES_MAX &&
    seconds! <= SECONDS_MAX &&
    offsetHours! <= HOURS_MAX &&
    offsetMinutes! <= MINUTES_MAX
  );
}

/** An ISO 8601 time as given; parsed to UTC with milliseconds. */
function isoTime(description: string) {
  return z
    .string()
    .max(40)
    .regex(ISO_8601)
    .refine((value) => isRealCalendarTime(value) && !Number.isNaN(new Date(value).getTime()), 'a real calendar time')
    .transform((value) => new Date(value).toISOString())
    .describe(description);
}

/** A page's size and position, common to every list. */
export const PAGE_FIELDS = {
  limit: z
    .string()
    .regex(/^[1-9]\d{0,2}$/)
    .pipe(z.coerce.number().int().min(1).max(LIST_LIMIT_MAX))
    .describe(`Page size, 1-${LIST_LIMIT_MAX}, default 50`)
    .optional(),
  cursor: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9_-]{1,200}$/)
    .describe('X-Next-Cursor of the previous page, with the same filters')
    .optional(),
};

/** Paging and the creation-time window, common to every list but the statement's. */
const PAGE_QUERY_FIELDS = {
  from: isoTime(
    'Inclusive lower bound on creation time (ISO 8601: a date, or a date and time with Z or an offset)',
  ).optional(),
  to: isoTime('Exclusive upper bound on creation time (ISO 8601)').optional(),
  ...PAGE_FIELDS,
};

/** The list's query: each parameter at most once; an unknown or repeated one is refused by name. */
export const collectionListQuerySchema = z
  .object({
    reference: z
      .string()
      .max(32)
      .regex(/^[A-Za-z0-9 -]{1,32}$/)
      .describe('A collection reference as typed (spaces and hyphens allowed for readability)')
      .optional(),
    status: z.enum(COLLECTION_STATUSES).describe('One status').optional(),
    ...PAGE_QUERY_FIELDS,
  })
  .strict();

export const transferListQuerySchema = z
  .object({
    status: z.enum(CONFIRMABLE_STATUSES).describe('One status').optional(),
    partnerReference: transferText('The transfers with this partnerReference').optional(),
    idempotencyKey: transferText(
      'The transfer created with this idempotencyKey (a batch item: every item with that key)',
    ).optional(),
    ...PAGE_QUERY_FIELDS,
  })
  .strict();

export const usdtSendListQuerySchema = z
  .object({
    status: z.enum(CONFIRMABLE_STATUSES).describe('One status').optional(),
    partnerReference: transferText('The sends with this partnerReference').optional(),
    idempotencyKey: transferText('The send created with this idempotencyKey (at most one)').optional(),
    ...PAGE_QUERY_FIELDS,
  })
  .strict();

export const transferBatchListQuerySchema = z
  .object({
    status: z.enum(BATCH_STATUSES).describe('One status, as `GET /v1/transfers/batch/{id}` shows it').optional(),
    idempotencyKey: transferText(
      "The batch created with this idempotencyKey (at most one; an item's key finds nothing here: use `GET /v1/transfers`)",
    ).optional(),
    ...PAGE_QUERY_FIELDS,
  })
  .strict();

export const mobileMoneyPushListQuerySchema = z
  .object({
    status: z.enum(MOBILE_MONEY_PUSH_STATUSES).describe('One status').optional(),
    ...PAGE_QUERY_FIELDS,
  })
  .strict();

/** A statement: the window bounds the time of each line (when the balance moved), not of the resource that moved it. */
export const statementQuerySchema = z
  .object({
    from: isoTime(
      'Inclusive lower bound on the time the balance moved (ISO 8601: a date, or a date and time with Z or an offset)',
    ).optional(),
    to: isoTime('Exclusive upper bound on the time the balance moved (ISO 8601)').optional(),
    ...PAGE_FIELDS,
  })
  .strict();

export const orderListQuerySchema = z
  .object({
    status: z.enum(ORDER_STATUSES).describe('One status').optional(),
    partnerReference: text(PARTNER_REFERENCE_LENGTH_MAX)
      .min(1)
      .describe('The order with this partnerReference (at most one)')
      .optional(),
    ...PAGE_QUERY_FIELDS,
  })
  .strict();

// ---------------------------------------------------------------- sandbox

export const sandboxRateSchema = named(
  z
    .object({
      bid: RATE_INPUT,
      ask: RATE_INPUT,
      halted: z
        .boolean()
        .optional()
        .describe(
          "true stops this partner's sandbox feed, so the rate goes stale (quotes answer 503 RATE_UNAVAILABLE)",
        ),
    })
    .strict(),
  "The sandbox rate feed's next price; ask must not be below bid",
);

/** A feed never quotes an ask below its bid; checked once both parse. */
export function askNotBelowBid(body: Record<string, unknown>): string[] {
  const bid = parseDecimal(body.bid, RATE_SCALE);
  const ask = parseDecimal(body.ask, RATE_SCALE);
  return bid && ask && ask.lt(bid) ? ['ask'] : [];
}

export const kesCreditSchema = named(
  z
    .object({
      amount: KES_AMOUNT_INPUT,
      reference: z
        .string()
        .max(64)
        .regex(/^[A-Za-z0-9._-]{1,64}$/)
        .optional()
        .describe("The payer rail's reference; a pay-in order's paymentReference matches that order"),
    })
    .strict(),
  'A paybill credit to land in the KES account',
);

export const usdtDepositSchema = named(
  z.object({ txHash: TX_HASH_INPUT, usdtAmount: USDT_AMOUNT_INPUT }).strict(),
  'A USDT deposit to land on the deposit address; the same txHash again answers the first deposit',
);

export const collectionDepositSchema = named(
  z
    .object({
      amount: USD_AMOUNT_INPUT,
      senderName: text(COLLECTION_TEXT_LENGTH_MAX)
        .min(1)
        .optional()
        .describe('Containing RETURN: the rails return the deposit'),
      depositId: z
        .string()
        .max(64)
        .regex(KEY_CHARACTERS)
        .optional()
        .describe("The rails' deposit id: the same one again answers the first deposit"),
    })
    .strict(),
  'A USD deposit to arrive for a collection',
);
