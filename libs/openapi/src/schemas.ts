/**
 * The component schemas of the partner plane. Money is a decimal string with an
 * exact scale in responses (KES 2, USDT 6, USD 2, rates 4); requests accept up to
 * the scale ("1000" is answered as "1000.00"). Objects allow additional
 * properties: the contract grows additively and clients must ignore new fields.
 */
type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
const obj = (required: string[], properties: Record<string, Schema>, description?: string): Schema => ({
  type: 'object', ...(description ? { description } : {}), required, properties,
});
const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const enumOf = (values: string[], description?: string): Schema => ({ type: 'string', enum: values, ...(description ? { description } : {}) });
const int = (description?: string): Schema => ({ type: 'integer', minimum: 0, ...(description ? { description } : {}) });

const amount = (decimals: number, currency: string): Schema => ({
  type: 'string', pattern: `^(0|[1-9][0-9]*)\\.[0-9]{${decimals}}$`, description: `${currency} amount, a decimal string with exactly ${decimals} decimals`,
  example: decimals === 6 ? '7.694669' : '1000.00',
});
const amountInput = (decimals: number, currency: string): Schema => ({
  type: 'string', pattern: `^(0|[1-9][0-9]*)(\\.[0-9]{1,${decimals}})?$`,
  description: `A positive ${currency} amount as a decimal string, at most ${decimals} decimals; never a JSON number`,
  example: decimals === 6 ? '10.000000' : '1000.00',
});

const MESSAGE_KINDS = ['wallet_approval', 'transfer_confirmation', 'usdt_send_confirmation', 'batch_confirmation'];
const COLLECTION_STATUSES = ['open', 'received', 'crediting', 'credited', 'refunded', 'expired'];
const ORDER_STATUSES = ['awaiting_usdt', 'awaiting_payment', 'funds_reserved', 'settled', 'rejected', 'expired'];

export function componentSchemas(errorCodes: string[]): Record<string, Schema> {
  return {
    Uuid: { type: 'string', format: 'uuid', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', example: '6f1c2d3e-4a5b-4c6d-8e7f-901234567890' },
    Timestamp: { type: 'string', format: 'date-time', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$', description: 'ISO 8601 UTC with milliseconds', example: '2026-01-01T10:00:00.000Z' },
    KesAmount: amount(2, 'KES'),
    UsdtAmount: amount(6, 'USDT'),
    UsdAmount: amount(2, 'USD'),
    Rate: { type: 'string', pattern: '^(0|[1-9][0-9]*)\\.[0-9]{4}$', description: 'KES per 1 USDT, 4 decimals', example: '129.9601' },
    KesAmountInput: amountInput(2, 'KES'),
    UsdtAmountInput: amountInput(6, 'USDT'),
    UsdAmountInput: amountInput(2, 'USD'),
    RateInput: { type: 'string', pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,4})?$', description: 'A positive rate, at most 4 decimals', example: '129.5000' },
    TxHash: { type: 'string', pattern: '^(0x)?[0-9a-f]{64}$', description: 'TRON transaction hash: 64 lowercase hex characters; a 0x prefix is stripped' },
    Money: obj(['currency', 'value'], { currency: str('KES, USDT or USD'), value: { type: 'string', pattern: '^(0|[1-9][0-9]*)\\.[0-9]{2,6}$' } }),
    ErrorCode: {
      type: 'string', enum: errorCodes,
      description: 'The stable codes partners branch on (`message`); generated from the error catalogue. See the errors guide for the status and meaning of each.',
    },
    ErrorEnvelope: obj(['statusCode', 'message', 'error', 'requestId'], {
      statusCode: { type: 'integer', minimum: 400, maximum: 599 },
      message: {
        description: 'The stable code to branch on, `Validation failed on: <fields>`, `An error occurred` (the uniform 401) or `Too Many Requests` (the rate limit)',
        anyOf: [ref('ErrorCode'), { type: 'string', pattern: '^Validation failed on: .+$' }, { const: 'An error occurred' }, { const: 'Too Many Requests' }],
      },
      error: str('The HTTP reason phrase (`unauthorized` on the 401)'),
      requestId: str('Also the X-Request-Id response header'),
      errorCode: str('A finer, non-branching detail on some refusals'),
      retryAfterSeconds: { type: 'integer', minimum: 0, description: 'Only where a refusal supplies it (never on the rate limit\'s 429)' },
    }, 'Every failure (spec section 7)'),
    Health: obj(['status', 'time', 'version'], { status: enumOf(['ok', 'degraded']), time: ref('Timestamp'), version: str() }),
    Fee: obj(['kesAmount', 'currency', 'percentBps', 'flatKesAmount', 'capKesAmount'], {
      kesAmount: ref('KesAmount'), currency: enumOf(['KES']), percentBps: int(), flatKesAmount: ref('KesAmount'), capKesAmount: nullable(ref('KesAmount')),
    }),
    QuoteRequest: {
      type: 'object', required: ['side'], additionalProperties: false,
      description: 'Exactly one of kesAmount and usdtAmount',
      properties: { side: enumOf(['buy', 'sell']), kesAmount: ref('KesAmountInput'), usdtAmount: ref('UsdtAmountInput') },
      oneOf: [{ required: ['kesAmount'] }, { required: ['usdtAmount'] }],
    },
    Quote: obj(['quoteId', 'side', 'kesAmount', 'usdtAmount', 'rate', 'kesTotalAmount', 'fee', 'expiresAt', 'settlementEstimateSeconds'], {
      quoteId: ref('Uuid'), side: enumOf(['buy', 'sell']), kesAmount: ref('KesAmount'), usdtAmount: ref('UsdtAmount'), rate: ref('Rate'),
      kesTotalAmount: ref('KesAmount'), fee: ref('Fee'), expiresAt: ref('Timestamp'), settlementEstimateSeconds: int(),
    }),
    BuyOrderRequest: {
      type: 'object', additionalProperties: false, required: ['quoteId', 'partnerReference'],
      properties: {
        quoteId: str(), partnerReference: { type: 'string', minLength: 1, maxLength: 200 }, expectedUsdtAmount: ref('UsdtAmountInput'),
        walletId: str('Pay-in buys: the active wallet the USDT is delivered to'), paymentRail: enumOf(['mobile_money'], 'Pay-in buys'),
      },
    },
    SellOrderRequest: {
      type: 'object', additionalProperties: false, required: ['quoteId', 'partnerReference', 'payoutAccountId'],
      properties: { quoteId: str(), partnerReference: { type: 'string', minLength: 1, maxLength: 200 }, payoutAccountId: str('An active payout destination id') },
    },
    AttachTxHashRequest: { type: 'object', additionalProperties: false, required: ['txHash'], properties: { txHash: ref('TxHash') } },
    Order: obj(['orderId', 'partnerReference', 'side', 'status', 'kesAmount', 'usdtAmount', 'rate', 'kesTotalAmount', 'fee', 'expiresAt', 'createdAt'], {
      orderId: ref('Uuid'), partnerReference: str(), side: enumOf(['buy', 'sell']), status: enumOf(ORDER_STATUSES),
      kesAmount: ref('KesAmount'), usdtAmount: ref('UsdtAmount'), rate: ref('Rate'), kesTotalAmount: ref('KesAmount'), fee: ref('Fee'),
      expiresAt: ref('Timestamp'), createdAt: ref('Timestamp'),
      kesDebit: obj(['status'], { status: enumOf(['reserved', 'debited', 'released', 'reversal_pending', 'reversed']) }, 'Debit-first buys'),
      depositAddress: str('Deposit-mode sells: the partner\'s permanent USDT deposit address'), chain: enumOf(['tron']),
      sendBefore: ref('Timestamp'), txHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      paymentInstructions: obj(['rail', 'paybill', 'payTo', 'beneficiaryName', 'reference', 'kesAmount', 'currency', 'payBefore', 'instructions'], {
        rail: str(), paybill: str(), payTo: str(), beneficiaryName: str(), reference: str(), kesAmount: ref('KesAmount'), currency: enumOf(['KES']),
        payBefore: ref('Timestamp'), instructions: str(),
      }, 'Pay-in buys'),
      paymentReference: str('Pay-in buys'), walletId: str('Pay-in buys'),
      payment: obj(['railReference', 'bankTransactionId', 'matchedAt'], { railReference: str(), bankTransactionId: str(), matchedAt: ref('Timestamp') }, 'Pay-in buys, once matched'),
    }, 'The shape follows the side and the partner\'s funding mode'),
    TxHashAttached: obj(['orderId', 'status', 'txHash'], { orderId: ref('Uuid'), status: enumOf(ORDER_STATUSES), txHash: { type: 'string', pattern: '^[0-9a-f]{64}$' } }),
    Balance: obj(['accountId', 'currency', 'available', 'held'], {
      accountId: ref('Uuid'), currency: enumOf(['KES', 'USDT', 'USD']),
      available: { type: 'string', pattern: '^(0|[1-9][0-9]*)\\.[0-9]{2,6}$' }, held: { type: 'string', pattern: '^(0|[1-9][0-9]*)\\.[0-9]{2,6}$' },
    }),
    FundingInstructions: obj(['kes', 'usdt'], {
      kes: { type: 'array', items: obj(['rail', 'paybill', 'accountReference', 'beneficiaryName', 'currency', 'instructions'], {
        rail: enumOf(['mobile_money_paybill']), paybill: str(), accountReference: str('Enter exactly as the account number'), beneficiaryName: str(),
        currency: enumOf(['KES']), instructions: str(),
      }) },
      usdt: obj(['chain', 'asset', 'address', 'memo', 'instructions'], {
        chain: enumOf(['tron']), asset: enumOf(['USDT']), address: str(), memo: { type: 'null' }, instructions: str(),
      }),
    }),
    PayoutDestination: obj(['id', 'rail', 'currency', 'accountName', 'accountNumber', 'bankCode', 'status'], {
      id: ref('Uuid'), rail: str(), currency: str(), accountName: str(), accountNumber: { type: 'string', pattern: '^\\*{4}.{1,4}$' },
      bankCode: nullable(str()), status: enumOf(['active']),
    }),
    AdminRequest: { type: 'object', additionalProperties: false, required: ['email', 'name'], properties: { email: { type: 'string', maxLength: 254 }, name: { type: 'string', minLength: 1, maxLength: 200 } } },
    Administrator: obj(['adminId', 'email', 'name', 'status'], { adminId: ref('Uuid'), email: str(), name: str(), status: enumOf(['active']) }),
    WalletRequest: {
      type: 'object', additionalProperties: false, required: ['chain', 'asset', 'address'],
      properties: { chain: enumOf(['tron']), asset: enumOf(['USDT']), address: str('TRON base58check, 34 characters, leading T'), label: { type: 'string', maxLength: 100 } },
    },
    WalletConfirmRequest: { type: 'object', additionalProperties: false, required: ['otp'], properties: { otp: { type: 'string', pattern: '^[0-9]{6}$' } } },
    Wallet: obj(['walletId', 'chain', 'asset', 'address', 'label', 'status', 'screeningStatus', 'createdAt', 'nextStep'], {
      walletId: ref('Uuid'), chain: enumOf(['tron']), asset: enumOf(['USDT']), address: str(), label: str(),
      status: enumOf(['pending_partner_approval', 'pending_service_approval', 'active', 'rejected']),
      screeningStatus: enumOf(['pending', 'cleared', 'rejected']), createdAt: ref('Timestamp'), nextStep: str(),
      approvalSentTo: { type: 'string', pattern: '^[^@*]\\*\\*\\*@[^@]+$', description: 'Masked e-mail of the administrator the code went to, while a code is outstanding' },
    }),
    ConfirmationHandle: obj(['id', 'channel', 'deliveredTo', 'expiresAt', 'resendAvailableAt'], {
      id: ref('Uuid'), channel: enumOf(['email']), deliveredTo: str('Masked e-mail'), expiresAt: ref('Timestamp'), resendAvailableAt: ref('Timestamp'),
    }),
    TransferDestination: {
      type: 'object', required: ['accountNumber', 'accountName'],
      properties: { accountNumber: str(), accountName: str(), bankCode: str() },
    },
    TransferRequest: {
      type: 'object', additionalProperties: false, required: ['rail', 'destination', 'amount', 'idempotencyKey'],
      properties: {
        rail: str('`mobile_money` or a bank rail'), destination: ref('TransferDestination'),
        amount: obj(['currency', 'value'], { currency: enumOf(['KES']), value: ref('KesAmountInput') }),
        idempotencyKey: { type: 'string', minLength: 1 }, partnerReference: { type: 'string', minLength: 1, description: 'Defaults to idempotencyKey' },
      },
    },
    Transfer: obj(['id', 'status', 'rail', 'amount', 'fee', 'destination', 'partnerReference', 'createdAt'], {
      id: ref('Uuid'), status: enumOf(['awaiting_confirmation', 'confirmed', 'settled', 'failed', 'expired']), rail: str(),
      amount: ref('Money'), fee: ref('Money'),
      destination: obj(['accountNumber', 'accountName'], { accountNumber: str('Masked: **** and the last four'), accountName: str(), bankCode: nullable(str()) }),
      nameVerification: str(), verifiedAccountName: nullable(str()), partnerReference: str(), failureCode: nullable(str()),
      createdAt: ref('Timestamp'), confirmedAt: nullable(ref('Timestamp')), settledAt: nullable(ref('Timestamp')), confirmation: nullable(ref('ConfirmationHandle')),
    }),
    TransferBatchRequest: {
      type: 'object', additionalProperties: false, required: ['idempotencyKey', 'items'],
      properties: { idempotencyKey: { type: 'string', minLength: 1 }, items: { type: 'array', minItems: 1, items: ref('TransferRequest') } },
    },
    TransferBatch: obj(['id', 'status', 'itemCount', 'acceptedCount', 'failedCount', 'items', 'createdAt'], {
      id: ref('Uuid'), status: str(), itemCount: int(), acceptedCount: int(), failedCount: int(),
      items: { type: 'array', items: obj(['idempotencyKey', 'accepted'], {
        transferId: nullable(str()), idempotencyKey: str(), accepted: { type: 'boolean' }, failureCode: nullable(str()),
      }) },
      createdAt: ref('Timestamp'), confirmedAt: nullable(ref('Timestamp')), confirmation: nullable(ref('ConfirmationHandle')),
    }),
    UsdtSendRequest: {
      type: 'object', additionalProperties: false, required: ['destinationWalletId', 'usdtAmount', 'idempotencyKey'],
      properties: {
        destinationWalletId: str('An active wallet'), usdtAmount: ref('UsdtAmountInput'), idempotencyKey: { type: 'string', minLength: 1 },
        partnerReference: { type: 'string', minLength: 1, description: 'Defaults to idempotencyKey' },
      },
    },
    UsdtSend: obj(['id', 'status', 'destinationWalletId', 'usdtAmount', 'partnerReference', 'createdAt'], {
      id: ref('Uuid'), status: enumOf(['awaiting_confirmation', 'confirmed', 'settled', 'failed', 'expired']), destinationWalletId: ref('Uuid'),
      usdtAmount: ref('UsdtAmount'), partnerReference: str(), failureReason: nullable(str()), createdAt: ref('Timestamp'),
      confirmedAt: nullable(ref('Timestamp')), confirmation: nullable(ref('ConfirmationHandle')),
    }),
    ConfirmRequest: { type: 'object', additionalProperties: false, required: ['code'], properties: { code: { type: 'string', pattern: '^[0-9]{6}$' } } },
    ConfirmationResult: obj(['confirmationId', 'subjectType', 'subjectId', 'status', 'verifiedAt'], {
      confirmationId: ref('Uuid'), subjectType: enumOf(['transfer', 'usdt_send', 'transfer_batch']), subjectId: ref('Uuid'),
      status: enumOf(['confirmed']), verifiedAt: ref('Timestamp'),
    }),
    MobileMoneyPushRequest: {
      type: 'object', additionalProperties: false, required: ['phone', 'amount'],
      properties: { phone: str('The payer\'s mobile-money number'), amount: ref('KesAmountInput') },
    },
    MobileMoneyPush: obj(['pushId', 'status'], { pushId: ref('Uuid'), status: str('`pending` on create') }),
    CollectionRequest: {
      type: 'object', additionalProperties: false, required: ['currency', 'partnerReference', 'payerLabel'],
      properties: {
        currency: enumOf(['USD']), partnerReference: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
        payerLabel: { type: 'string', minLength: 1, maxLength: 200 }, expectedAmount: ref('UsdAmountInput'),
      },
    },
    Collection: obj(['id', 'reference', 'status', 'currency', 'depositInstructions', 'fee', 'expectedAmount', 'grossAmount', 'feeAmount', 'netAmount', 'createdAt'], {
      id: ref('Uuid'), reference: { type: 'string', pattern: '^[0-9A-HJKMNP-TV-Y]{11}$' }, status: enumOf(COLLECTION_STATUSES), currency: enumOf(['USD']),
      depositInstructions: nullable(obj(['beneficiaryName', 'bankName', 'routingNumber', 'accountNumber', 'rails', 'depositMessage'], {
        beneficiaryName: str(), bankName: str(), routingNumber: { type: 'string', pattern: '^[0-9]{9}$' },
        accountNumber: { type: 'string', pattern: '^\\*{4}[0-9]{4}$' }, rails: { type: 'array', items: enumOf(['ach_push', 'fednow', 'wire']) }, depositMessage: str(),
      })),
      fee: nullable(obj(['percentBps', 'flatMinor', 'capMinor', 'currency'], { percentBps: int(), flatMinor: int(), capMinor: int(), currency: enumOf(['USD']) })),
      expectedAmount: nullable(ref('UsdAmount')), grossAmount: nullable(ref('UsdAmount')), feeAmount: nullable(ref('UsdAmount')), netAmount: nullable(ref('UsdAmount')),
      createdAt: ref('Timestamp'), partnerReference: str(), payerLabel: str(), amountMismatch: nullable({ type: 'boolean' }),
      senderName: nullable(str()), refundReason: nullable(str()), treasuryCreditTxId: nullable(str()), expiresAt: ref('Timestamp'),
    }),
    SandboxRateRequest: {
      type: 'object', additionalProperties: false, required: ['bid', 'ask'],
      properties: { bid: ref('RateInput'), ask: ref('RateInput'), halted: { type: 'boolean' } },
    },
    SandboxRate: obj(['bid', 'ask', 'halted', 'observedAt'], { bid: ref('Rate'), ask: ref('Rate'), halted: { type: 'boolean' }, observedAt: ref('Timestamp') }),
    KesCreditRequest: {
      type: 'object', additionalProperties: false, required: ['amount'],
      properties: { amount: ref('KesAmountInput'), reference: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' } },
    },
    KesCredit: obj(['transactionId', 'accountId', 'amount', 'rail', 'reference', 'receivedAt'], {
      transactionId: ref('Uuid'), accountId: ref('Uuid'), amount: ref('Money'), rail: str(), reference: nullable(str()), receivedAt: ref('Timestamp'),
    }),
    UsdtDepositRequest: {
      type: 'object', additionalProperties: false, required: ['txHash', 'usdtAmount'],
      properties: { txHash: ref('TxHash'), usdtAmount: ref('UsdtAmountInput') },
    },
    UsdtDeposit: obj(['activityId', 'txHash', 'amount', 'status', 'receivedAt'], {
      activityId: ref('Uuid'), txHash: { type: 'string', pattern: '^[0-9a-f]{64}$' }, amount: ref('Money'),
      status: enumOf(['credited', 'held_for_attribution', 'claimed']), receivedAt: ref('Timestamp'),
    }),
    OutboxEntry: obj(['id', 'kind', 'to', 'subject', 'code', 'subjectType', 'subjectId', 'createdAt'], {
      id: ref('Uuid'), kind: enumOf(MESSAGE_KINDS), to: str('Masked e-mail'), subject: str(), code: nullable({ type: 'string', pattern: '^[0-9]{6}$' }),
      subjectType: str(), subjectId: ref('Uuid'), createdAt: ref('Timestamp'),
    }),
    CollectionDepositRequest: {
      type: 'object', additionalProperties: false, required: ['amount'],
      properties: {
        amount: ref('UsdAmountInput'), senderName: { type: 'string', minLength: 1, maxLength: 200, description: 'Containing RETURN: the rails return the deposit' },
        depositId: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
      },
    },
    CollectionDeposit: obj(['depositId', 'collectionId', 'amount', 'currency', 'senderName', 'disposition', 'refundReason', 'receivedAt', 'collection'], {
      depositId: str(), collectionId: ref('Uuid'), amount: ref('UsdAmount'), currency: enumOf(['USD']), senderName: nullable(str()),
      disposition: enumOf(['accepted', 'refunded']), refundReason: nullable(str()), receivedAt: ref('Timestamp'), collection: ref('Collection'),
    }),
    MobileMoneyPushOutcome: obj(['pushId', 'status'], { pushId: ref('Uuid'), status: str('`approved` or `declined`') }),
  };
}
