/**
 * The response schemas of the partner plane (request bodies are derived from
 * the operation table's zod schemas: see json-schema.ts). Money is a decimal
 * string with an exact scale in responses (KES 2, USDT 6, USD 2, rates 4).
 * Every string states a maximum length and a pattern or enum, every integer
 * its bounds and format, every array its maximum size; every integration test
 * validates the answers it sees against these. Objects allow additional
 * properties: the contract grows additively and clients must ignore new fields.
 */
import { UUID_LENGTH, UUID_PATTERN } from '@platform/ids';
import { NO_CONTROL_CHARACTERS } from './contract/fields';
import { BATCH_ITEMS_MAX } from './contract/requests';
import {
  BATCH_STATUSES,
  COLLECTION_STATUSES,
  CONFIRMABLE_STATUSES,
  KES_DEBIT_STATUSES,
  MESSAGE_KINDS,
  MOBILE_MONEY_PUSH_STATUSES,
  ORDER_STATUSES,
  STATEMENT_LINE_TYPES,
  USDT_DEPOSIT_STATUSES,
  WALLET_SCREENING_STATUSES,
  WALLET_STATUSES,
} from './contract/statuses';

type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
const obj = (required: string[], properties: Record<string, Schema>, description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties,
});
const described = (schema: Schema, description?: string): Schema => (description ? { ...schema, description } : schema);

/** A string of at most `maxLength` characters matching `pattern`. */
const patterned = (maxLength: number, pattern: string, description?: string): Schema =>
  described({ type: 'string', maxLength, pattern }, description);

/** Human text of at most `maxLength` characters, without control characters (the requests' rule too). */
export const text = (maxLength: number, description?: string): Schema =>
  patterned(maxLength, NO_CONTROL_CHARACTERS.source, description);
/** A machine word: lower-case letters, digits and underscores (a status or rail the service may add to). */
export const word = (description?: string): Schema => patterned(64, '^[a-z0-9_]{1,64}$', description);
/** A stable upper-case code, e.g. a failure code. */
export const code = (description?: string): Schema => patterned(64, '^[A-Z0-9_]{1,64}$', description);
const enumOf = (values: readonly string[], description?: string): Schema =>
  described({ type: 'string', enum: values }, description);
const int = (maximum: number, description?: string): Schema =>
  described({ type: 'integer', format: 'int32', minimum: 0, maximum }, description);
const int64 = (maximum: number, description?: string): Schema =>
  described({ type: 'integer', format: 'int64', minimum: 0, maximum }, description);
const array = (items: Schema, maxItems: number, description?: string): Schema =>
  described({ type: 'array', maxItems, items }, description);

const KEY = '^[A-Za-z0-9._:-]{1,128}$';
const MASKED_EMAIL = patterned(
  254,
  '^[^@*\\s]\\*\\*\\*@[^@\\s]+$',
  'Masked e-mail: first character, `***`, `@` and the domain',
);
const MASKED_ACCOUNT_NUMBER = patterned(8, '^\\*{4}[^\\s]{1,4}$', 'Masked: `****` and the last four characters');
const TRON_ADDRESS = patterned(34, '^T[1-9A-HJ-NP-Za-km-z]{33}$', 'TRON base58check address');
const TX_HASH = patterned(64, '^[0-9a-f]{64}$', 'TRON transaction hash, lowercase hex');
const BASIS_POINTS_MAX = 10_000;
/** Collections' fee terms are integers of at most 1,000,000,000 minor units. */
const MINOR_UNITS_MAX = 1_000_000_000;
const SECONDS_IN_A_WEEK = 604_800;
/** Integer digits of any amount (@platform/money bounds every amount to 15). */
const amountLengthMax = (decimals: number) => 15 + 1 + decimals;

const amount = (decimals: number, currency: string): Schema => ({
  type: 'string',
  maxLength: amountLengthMax(decimals),
  pattern: `^(0|[1-9][0-9]*)\\.[0-9]{${decimals}}$`,
  description: `${currency} amount, a decimal string with exactly ${decimals} decimals`,
  example: decimals === 6 ? '7.694669' : '1000.00',
});
/** Any currency's amount: 2 (KES, USD) or 6 (USDT) decimals. */
const ANY_AMOUNT = { type: 'string', maxLength: amountLengthMax(6), pattern: '^(0|[1-9][0-9]*)\\.[0-9]{2,6}$' };
const SIGNED_AMOUNT = {
  type: 'string',
  maxLength: 1 + amountLengthMax(6),
  pattern: '^-?(0|[1-9][0-9]*)\\.[0-9]{2,6}$',
};

const TRANSFER_RAILS = ['mobile_money', 'pesalink', 'rtgs', 'eft'];

function errorSchemas(errorCodes: string[]): Record<string, Schema> {
  return {
    ErrorCode: {
      type: 'string',
      enum: errorCodes,
      description:
        'The stable codes partners branch on (`message`); generated from the error catalogue. See the errors guide for the status and meaning of each.',
    },
    ErrorEnvelope: obj(
      ['statusCode', 'message', 'error', 'requestId'],
      {
        statusCode: { type: 'integer', format: 'int32', minimum: 400, maximum: 599 },
        message: {
          description:
            'The stable code to branch on, `Validation failed on: <fields>`, `An error occurred` (the uniform 401) or `Too Many Requests` (the rate limit)',
          anyOf: [
            ref('ErrorCode'),
            { type: 'string', maxLength: 4_096, pattern: '^Validation failed on: .+$' },
            { type: 'string', const: 'An error occurred' },
            { type: 'string', const: 'Too Many Requests' },
          ],
        },
        error: text(64, 'The HTTP reason phrase (`unauthorized` on the 401)'),
        requestId: {
          type: 'string',
          maxLength: 64,
          pattern: '^[A-Za-z0-9._:-]{1,64}$',
          description: 'Also the X-Request-Id response header',
        },
        errorCode: code('A finer, non-branching detail on some refusals'),
        retryAfterSeconds: int(SECONDS_IN_A_WEEK, "Only where a refusal supplies it (never on the rate limit's 429)"),
      },
      'Every failure answers this shape',
    ),
  };
}

function scalarSchemas(): Record<string, Schema> {
  return {
    Uuid: {
      type: 'string',
      format: 'uuid',
      maxLength: UUID_LENGTH,
      pattern: UUID_PATTERN.source,
      example: '6f1c2d3e-4a5b-4c6d-8e7f-901234567890',
    },
    Timestamp: {
      type: 'string',
      format: 'date-time',
      maxLength: 24,
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$',
      description: 'ISO 8601 UTC with milliseconds',
      example: '2026-01-01T10:00:00.000Z',
    },
    KesAmount: amount(2, 'KES'),
    UsdtAmount: amount(6, 'USDT'),
    UsdAmount: amount(2, 'USD'),
    Rate: {
      type: 'string',
      maxLength: amountLengthMax(4),
      pattern: '^(0|[1-9][0-9]*)\\.[0-9]{4}$',
      description: 'KES per 1 USDT, 4 decimals',
      example: '129.9601',
    },
    Money: obj(['currency', 'value'], { currency: enumOf(['KES', 'USDT', 'USD']), value: ANY_AMOUNT }),
  };
}

function tradingSchemas(): Record<string, Schema> {
  return {
    Health: obj(['status', 'time', 'version'], {
      status: enumOf(['ok', 'degraded']),
      time: ref('Timestamp'),
      version: { type: 'string', maxLength: 64, pattern: '^[0-9A-Za-z.+-]{1,64}$' },
    }),
    Fee: obj(['kesAmount', 'currency', 'percentBps', 'flatKesAmount', 'capKesAmount'], {
      kesAmount: ref('KesAmount'),
      currency: enumOf(['KES']),
      percentBps: int(BASIS_POINTS_MAX),
      flatKesAmount: ref('KesAmount'),
      capKesAmount: nullable(ref('KesAmount')),
    }),
    Quote: obj(
      [
        'quoteId',
        'side',
        'kesAmount',
        'usdtAmount',
        'rate',
        'kesTotalAmount',
        'fee',
        'expiresAt',
        'settlementEstimateSeconds',
      ],
      {
        quoteId: ref('Uuid'),
        side: enumOf(['buy', 'sell']),
        kesAmount: ref('KesAmount'),
        usdtAmount: ref('UsdtAmount'),
        rate: ref('Rate'),
        kesTotalAmount: ref('KesAmount'),
        fee: ref('Fee'),
        expiresAt: ref('Timestamp'),
        settlementEstimateSeconds: int(SECONDS_IN_A_WEEK),
      },
    ),
    Order: obj(
      [
        'orderId',
        'partnerReference',
        'side',
        'status',
        'kesAmount',
        'usdtAmount',
        'rate',
        'kesTotalAmount',
        'fee',
        'expiresAt',
        'createdAt',
      ],
      {
        orderId: ref('Uuid'),
        partnerReference: text(200),
        side: enumOf(['buy', 'sell']),
        status: enumOf(ORDER_STATUSES),
        kesAmount: ref('KesAmount'),
        usdtAmount: ref('UsdtAmount'),
        rate: ref('Rate'),
        kesTotalAmount: ref('KesAmount'),
        fee: ref('Fee'),
        expiresAt: ref('Timestamp'),
        createdAt: ref('Timestamp'),
        kesDebit: obj(
          ['status'],
          { status: enumOf(KES_DEBIT_STATUSES) },
          'Debit-first buys (pay-in buys once the payment is held)',
        ),
        depositAddress: {
          ...TRON_ADDRESS,
          description: "Deposit-mode sells: the partner's permanent USDT deposit address",
        },
        chain: enumOf(['tron']),
        sendBefore: ref('Timestamp'),
        txHash: TX_HASH,
        paymentInstructions: obj(
          [
            'rail',
            'paybill',
            'payTo',
            'beneficiaryName',
            'reference',
            'kesAmount',
            'currency',
            'payBefore',
            'instructions',
          ],
          {
            rail: word(),
            paybill: text(32),
            payTo: text(64),
            beneficiaryName: text(200),
            reference: text(64),
            kesAmount: ref('KesAmount'),
            currency: enumOf(['KES']),
            payBefore: ref('Timestamp'),
            instructions: text(1_000),
          },
          'Pay-in buys',
        ),
        payBefore: ref('Timestamp'),
        paymentReference: text(64, 'Pay-in buys'),
        walletId: ref('Uuid'),
        payment: obj(
          ['railReference', 'bankTransactionId', 'matchedAt'],
          {
            railReference: text(64),
            bankTransactionId: text(64),
            matchedAt: ref('Timestamp'),
          },
          'Pay-in buys, once matched',
        ),
      },
      "The shape follows the side and the partner's funding mode",
    ),
    TxHashAttached: obj(['orderId', 'status', 'txHash'], {
      orderId: ref('Uuid'),
      status: enumOf(ORDER_STATUSES),
      txHash: TX_HASH,
    }),
    SandboxRate: obj(['bid', 'ask', 'halted', 'observedAt'], {
      bid: ref('Rate'),
      ask: ref('Rate'),
      halted: { type: 'boolean' },
      observedAt: ref('Timestamp'),
    }),
  };
}

function fundingSchemas(): Record<string, Schema> {
  return {
    Balance: obj(['accountId', 'currency', 'available', 'held'], {
      accountId: ref('Uuid'),
      currency: enumOf(['KES', 'USDT', 'USD']),
      available: ANY_AMOUNT,
      held: ANY_AMOUNT,
    }),
    FundingInstructions: obj(['kes', 'usdt'], {
      kes: array(
        obj(['rail', 'paybill', 'accountReference', 'beneficiaryName', 'currency', 'instructions'], {
          rail: enumOf(['mobile_money_paybill']),
          paybill: text(32),
          accountReference: text(64, 'Enter exactly as the account number'),
          beneficiaryName: text(200),
          currency: enumOf(['KES']),
          instructions: text(1_000),
        }),
        4,
        'Empty while the KES account is not active',
      ),
      usdt: obj(['chain', 'asset', 'address', 'memo', 'instructions'], {
        chain: enumOf(['tron']),
        asset: enumOf(['USDT']),
        address: TRON_ADDRESS,
        memo: { type: 'null' },
        instructions: text(1_000),
      }),
    }),
    PayoutDestination: obj(['id', 'rail', 'currency', 'accountName', 'accountNumber', 'bankCode', 'status'], {
      id: ref('Uuid'),
      rail: word(),
      currency: { type: 'string', maxLength: 4, pattern: '^[A-Z]{3,4}$' },
      accountName: text(200),
      accountNumber: MASKED_ACCOUNT_NUMBER,
      bankCode: nullable(text(32)),
      status: enumOf(['active']),
    }),
    MobileMoneyPush: obj(['pushId', 'status'], { pushId: ref('Uuid'), status: word('`pending` on create') }),
    MobileMoneyPushRecord: obj(
      ['pushId', 'status', 'amount', 'phone', 'createdAt', 'expiresAt'],
      {
        pushId: ref('Uuid'),
        status: enumOf(MOBILE_MONEY_PUSH_STATUSES),
        amount: ref('Money'),
        phone: MASKED_ACCOUNT_NUMBER,
        createdAt: ref('Timestamp'),
        expiresAt: ref('Timestamp'),
        answeredAt: nullable(ref('Timestamp')),
        creditTransactionId: nullable(ref('Uuid')),
      },
      'A prompt as it stands; creditTransactionId is the transactionId of its credit.received, once credited',
    ),
    StatementLine: obj(
      ['id', 'accountId', 'currency', 'type', 'amount', 'direction', 'availableAfter', 'createdAt', 'resourceId'],
      {
        id: ref('Uuid'),
        accountId: ref('Uuid'),
        currency: enumOf(['KES', 'USDT', 'USD']),
        type: enumOf(STATEMENT_LINE_TYPES, 'What moved the balance'),
        amount: {
          ...SIGNED_AMOUNT,
          description: "The change in the available balance: negative when it left, in the currency's decimals",
        },
        direction: enumOf(['credit', 'debit'], '`credit` when amount is positive, `debit` when negative'),
        availableAfter: {
          ...ANY_AMOUNT,
          description:
            "The available balance right after this line; the previous line's availableAfter plus this amount, exactly",
        },
        createdAt: ref('Timestamp'),
        resourceId: nullable({
          type: 'string',
          maxLength: 64,
          pattern: '^[A-Za-z0-9-]{1,64}$',
          description:
            'The order, transfer, USDT send, collection or credit that moved the balance (null on opening_balance)',
        }),
      },
      'One movement of an available balance',
    ),
    MobileMoneyPushOutcome: obj(['pushId', 'status'], {
      pushId: ref('Uuid'),
      status: word('`approved` or `declined`'),
      amount: ref('Money'),
      expiresAt: ref('Timestamp'),
      answeredAt: nullable(ref('Timestamp')),
      creditTransactionId: nullable(ref('Uuid')),
    }),
    KesCredit: obj(['transactionId', 'accountId', 'amount', 'rail', 'reference', 'receivedAt'], {
      transactionId: ref('Uuid'),
      accountId: ref('Uuid'),
      amount: ref('Money'),
      rail: word(),
      reference: nullable(text(64)),
      receivedAt: ref('Timestamp'),
    }),
    UsdtDeposit: obj(['activityId', 'txHash', 'amount', 'status', 'receivedAt'], {
      activityId: ref('Uuid'),
      txHash: TX_HASH,
      amount: ref('Money'),
      status: enumOf(USDT_DEPOSIT_STATUSES),
      receivedAt: ref('Timestamp'),
    }),
  };
}

function walletSchemas(): Record<string, Schema> {
  return {
    Administrator: obj(['adminId', 'email', 'name', 'status'], {
      adminId: ref('Uuid'),
      email: { type: 'string', maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' },
      name: text(200),
      status: enumOf(['active']),
    }),
    Wallet: obj(
      ['walletId', 'chain', 'asset', 'address', 'label', 'status', 'screeningStatus', 'createdAt', 'nextStep'],
      {
        walletId: ref('Uuid'),
        chain: enumOf(['tron']),
        asset: enumOf(['USDT']),
        address: TRON_ADDRESS,
        label: text(100),
        status: enumOf(WALLET_STATUSES),
        screeningStatus: enumOf(WALLET_SCREENING_STATUSES),
        createdAt: ref('Timestamp'),
        nextStep: text(1_000, 'What happens next, in words'),
        approvalSentTo: {
          ...MASKED_EMAIL,
          description: 'Masked e-mail of the administrator the code went to, while a code is outstanding',
        },
      },
    ),
    OutboxEntry: obj(['id', 'kind', 'to', 'subject', 'code', 'subjectType', 'subjectId', 'createdAt'], {
      id: ref('Uuid'),
      kind: enumOf(MESSAGE_KINDS),
      to: MASKED_EMAIL,
      subject: text(200),
      code: nullable({ type: 'string', maxLength: 6, pattern: '^[0-9]{6}$' }),
      subjectType: word(),
      subjectId: ref('Uuid'),
      createdAt: ref('Timestamp'),
    }),
  };
}

function payoutSchemas(): Record<string, Schema> {
  const idempotencyKey = { type: 'string', maxLength: 128, pattern: KEY };
  return {
    ConfirmationHandle: obj(['id', 'channel', 'deliveredTo', 'expiresAt', 'resendAvailableAt'], {
      id: ref('Uuid'),
      channel: enumOf(['email']),
      deliveredTo: MASKED_EMAIL,
      expiresAt: ref('Timestamp'),
      resendAvailableAt: ref('Timestamp'),
    }),
    Transfer: obj(['id', 'status', 'rail', 'amount', 'fee', 'destination', 'partnerReference', 'createdAt'], {
      id: ref('Uuid'),
      status: enumOf(CONFIRMABLE_STATUSES),
      rail: enumOf(TRANSFER_RAILS),
      amount: ref('Money'),
      fee: ref('Money'),
      destination: obj(['accountNumber', 'accountName'], {
        accountNumber: MASKED_ACCOUNT_NUMBER,
        accountName: text(100),
        bankCode: nullable({ type: 'string', maxLength: 11, pattern: '^[0-9]{2,11}$' }),
      }),
      nameVerification: word("`verified`, or the rail's reason it could not verify"),
      verifiedAccountName: nullable(text(200)),
      partnerReference: text(128),
      failureCode: nullable(code()),
      createdAt: ref('Timestamp'),
      confirmedAt: nullable(ref('Timestamp')),
      settledAt: nullable(ref('Timestamp')),
      confirmation: nullable(ref('ConfirmationHandle')),
      idempotencyKey,
    }),
    TransferBatch: obj(['id', 'status', 'itemCount', 'acceptedCount', 'failedCount', 'items', 'createdAt'], {
      id: ref('Uuid'),
      status: enumOf(
        BATCH_STATUSES,
        '`awaiting_confirmation`, then `confirmed`, and `completed` once every accepted item is settled or failed; `failed` when no item was accepted',
      ),
      itemCount: int(BATCH_ITEMS_MAX),
      acceptedCount: int(BATCH_ITEMS_MAX),
      failedCount: int(BATCH_ITEMS_MAX),
      items: array(
        obj(['idempotencyKey', 'accepted'], {
          transferId: nullable(ref('Uuid')),
          idempotencyKey,
          accepted: { type: 'boolean' },
          failureCode: nullable(code()),
        }),
        BATCH_ITEMS_MAX,
      ),
      createdAt: ref('Timestamp'),
      confirmedAt: nullable(ref('Timestamp')),
      confirmation: nullable(ref('ConfirmationHandle')),
      idempotencyKey,
    }),
    UsdtSend: obj(['id', 'status', 'destinationWalletId', 'usdtAmount', 'partnerReference', 'createdAt'], {
      id: ref('Uuid'),
      status: enumOf(CONFIRMABLE_STATUSES),
      destinationWalletId: ref('Uuid'),
      usdtAmount: ref('UsdtAmount'),
      partnerReference: text(128),
      failureReason: nullable(code()),
      createdAt: ref('Timestamp'),
      confirmedAt: nullable(ref('Timestamp')),
      confirmation: nullable(ref('ConfirmationHandle')),
      settledAt: nullable(ref('Timestamp')),
      idempotencyKey,
    }),
    ConfirmationResult: obj(['confirmationId', 'subjectType', 'subjectId', 'status', 'verifiedAt'], {
      confirmationId: ref('Uuid'),
      subjectType: enumOf(['transfer', 'usdt_send', 'transfer_batch']),
      subjectId: ref('Uuid'),
      status: enumOf(['confirmed']),
      verifiedAt: ref('Timestamp'),
    }),
  };
}

function collectionSchemas(): Record<string, Schema> {
  return {
    Collection: obj(
      [
        'id',
        'reference',
        'status',
        'currency',
        'depositInstructions',
        'fee',
        'expectedAmount',
        'grossAmount',
        'feeAmount',
        'netAmount',
        'createdAt',
      ],
      {
        id: ref('Uuid'),
        reference: { type: 'string', maxLength: 11, pattern: '^[0-9A-HJKMNP-TV-Y]{11}$' },
        status: enumOf(COLLECTION_STATUSES),
        currency: enumOf(['USD']),
        depositInstructions: nullable(
          obj(['beneficiaryName', 'bankName', 'routingNumber', 'accountNumber', 'rails', 'depositMessage'], {
            beneficiaryName: text(200),
            bankName: text(200),
            routingNumber: { type: 'string', maxLength: 9, pattern: '^[0-9]{9}$' },
            accountNumber: { type: 'string', maxLength: 8, pattern: '^\\*{4}[0-9]{4}$' },
            rails: array(enumOf(['ach_push', 'fednow', 'wire']), 3),
            depositMessage: text(1_000),
          }),
        ),
        fee: nullable(
          obj(['percentBps', 'flatMinor', 'capMinor', 'currency'], {
            percentBps: int(BASIS_POINTS_MAX),
            flatMinor: int64(MINOR_UNITS_MAX),
            capMinor: int64(MINOR_UNITS_MAX),
            currency: enumOf(['USD']),
          }),
        ),
        expectedAmount: nullable(ref('UsdAmount')),
        grossAmount: nullable(ref('UsdAmount')),
        feeAmount: nullable(ref('UsdAmount')),
        netAmount: nullable(ref('UsdAmount')),
        createdAt: ref('Timestamp'),
        partnerReference: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9._:-]{1,64}$' },
        payerLabel: text(200),
        amountMismatch: nullable({ type: 'boolean' }),
        senderName: nullable(text(200)),
        refundReason: nullable(word()),
        treasuryCreditTxId: nullable({ type: 'string', maxLength: 128, pattern: KEY }),
        expiresAt: ref('Timestamp'),
      },
    ),
    CollectionDeposit: obj(
      [
        'depositId',
        'collectionId',
        'amount',
        'currency',
        'senderName',
        'disposition',
        'refundReason',
        'receivedAt',
        'collection',
      ],
      {
        depositId: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9._:-]{1,64}$' },
        collectionId: ref('Uuid'),
        amount: ref('UsdAmount'),
        currency: enumOf(['USD']),
        senderName: nullable(text(200)),
        disposition: enumOf(['accepted', 'refunded']),
        refundReason: nullable(word()),
        receivedAt: ref('Timestamp'),
        collection: ref('Collection'),
      },
    ),
  };
}

export function componentSchemas(errorCodes: string[]): Record<string, Schema> {
  return {
    ...scalarSchemas(),
    ...errorSchemas(errorCodes),
    ...tradingSchemas(),
    ...fundingSchemas(),
    ...walletSchemas(),
    ...payoutSchemas(),
    ...collectionSchemas(),
  };
}
