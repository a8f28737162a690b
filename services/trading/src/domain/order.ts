/**
 * Orders: the stored
 * record, what partners read, what order.* events carry, and the pure rules
 * the use cases apply. No I/O here.
 */
import { Big, CURRENCY_SCALE, formatAmount, formatDecimal, RATE_SCALE } from '@platform/money';
// The partner contract states the statuses; its light module loads no zod.
import { ORDER_STATUSES, type KesDebitStatus, type OrderStatus } from '@platform/openapi/dist/contract/statuses';

export { ORDER_STATUSES, type KesDebitStatus, type OrderStatus };

export type OrderSide = 'buy' | 'sell';
export type FundingMode = 'debit_first' | 'pay_in' | 'deposit' | 'balance';
/** Where the (simulated) bank's debit of a debit-first buy stands. */
export type DebitOutcome = 'pending' | 'accepted' | 'ambiguous' | 'refused';

export const TERMINAL_STATUSES: readonly OrderStatus[] = ['settled', 'rejected', 'expired'];

/** The deposit chain shown on sell orders. */
export const SELL_CHAIN = 'tron';

/** Longest partnerReference stored (the column's check); longer is 400. */
export const PARTNER_REFERENCE_LENGTH_MAX = 200;

export interface OrderRecord {
  orderId: string;
  partnerId: string;
  partnerReference: string;
  quoteId: string;
  side: OrderSide;
  fundingMode: FundingMode;
  status: OrderStatus;
  kesAmount: string;
  usdtAmount: string;
  rate: string;
  feeKes: string;
  feeBps: number;
  feeFlatKes: string;
  feeCapKes: string | null;
  kesTotalAmount: string;
  expiresAt: Date;
  kesDebitStatus: KesDebitStatus | null;
  debitOutcome: DebitOutcome | null;
  depositAddress: string | null;
  sendBefore: Date | null;
  payoutAccountId: string | null;
  txHash: string | null;
  depositUsdtAmount: string | null;
  payoutInstructionId: string | null;
  refusalCode: string | null;
  nextActionAt: Date | null;
  fundsConfirmedAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
  /** Pay-in buys only (null otherwise). */
  walletId: string | null;
  paymentReference: string | null;
  paybill: string | null;
  beneficiaryName: string | null;
  payBefore: Date | null;
  paymentRailReference: string | null;
  paymentBankTransactionId: string | null;
  paymentMatchedAt: Date | null;
  paymentKesAmount: string | null;
}

/** What an order's view reads of its record (orderView), and whose the order is: a partner's read selects no more. */
export type OrderViewRecord = Pick<
  OrderRecord,
  | 'orderId'
  | 'partnerId'
  | 'partnerReference'
  | 'side'
  | 'fundingMode'
  | 'status'
  | 'kesAmount'
  | 'usdtAmount'
  | 'rate'
  | 'feeKes'
  | 'feeBps'
  | 'feeFlatKes'
  | 'feeCapKes'
  | 'kesTotalAmount'
  | 'expiresAt'
  | 'kesDebitStatus'
  | 'depositAddress'
  | 'sendBefore'
  | 'txHash'
  | 'createdAt'
  | 'walletId'
  | 'paymentReference'
  | 'paybill'
  | 'beneficiaryName'
  | 'payBefore'
  | 'paymentRailReference'
  | 'paymentBankTransactionId'
  | 'paymentMatchedAt'
>;

export interface OrderView {
  orderId: string;
  partnerReference: string;
  side: OrderSide;
  fundingMode: FundingMode;
  status: OrderStatus;
  kesAmount: string;
  usdtAmount: string;
  rate: string;
  kesTotalAmount: string;
  fee: { kesAmount: string; percentBps: number; flatKesAmount: string; capKesAmount: string | null };
  expiresAt: string;
  kesDebit: { status: KesDebitStatus } | null;
  depositAddress: string | null;
  chain: string | null;
  sendBefore: string | null;
  txHash: string | null;
  createdAt: string;
  paymentInstructions: PaymentInstructionsView | null;
  paymentReference: string | null;
  walletId: string | null;
  payment: { railReference: string; bankTransactionId: string; matchedAt: string } | null;
}

export interface PaymentInstructionsView {
  rail: string;
  paybill: string;
  payTo: string;
  beneficiaryName: string;
  reference: string;
  kesAmount: string;
  currency: 'KES';
  payBefore: string;
  instructions: string;
}

/**
 * A stored amount's text at exactly `scale` decimals, as formatDecimal writes it. A numeric(p, s)
 * column answers its values at exactly its scale ("100.00"), which is already that text: kept as it
 * is, without big.js's parse, check and print (most of an order read's own CPU). Any other text
 * (another scale, an amount given by code) goes through formatDecimal.
 */
function atScale(value: string, scale: number, canonical: RegExp): string {
  return canonical.test(value) ? value : formatDecimal(new Big(value), scale);
}

/** Digits without a leading zero, a point, exactly the scale's decimals: formatDecimal's output, never anything else. */
const canonicalAt = (scale: number) => new RegExp(`^(0|[1-9]\\d*)\\.\\d{${scale}}$`);
const KES_TEXT = canonicalAt(CURRENCY_SCALE.KES);
const USDT_TEXT = canonicalAt(CURRENCY_SCALE.USDT);
const RATE_TEXT = canonicalAt(RATE_SCALE);

const kes = (value: string) => atScale(value, CURRENCY_SCALE.KES, KES_TEXT);
const usdt = (value: string) => atScale(value, CURRENCY_SCALE.USDT, USDT_TEXT);
const rate = (value: string) => atScale(value, RATE_SCALE, RATE_TEXT);

export function orderView(order: OrderViewRecord): OrderView {
  return {
    orderId: order.orderId,
    partnerReference: order.partnerReference,
    side: order.side,
    fundingMode: order.fundingMode,
    status: order.status,
    kesAmount: kes(order.kesAmount),
    usdtAmount: usdt(order.usdtAmount),
    rate: rate(order.rate),
    kesTotalAmount: kes(order.kesTotalAmount),
    fee: {
      kesAmount: kes(order.feeKes),
      percentBps: order.feeBps,
      flatKesAmount: kes(order.feeFlatKes),
      capKesAmount: order.feeCapKes === null ? null : kes(order.feeCapKes),
    },
    expiresAt: new Date(order.expiresAt).toISOString(),
    kesDebit: order.kesDebitStatus ? { status: order.kesDebitStatus } : null,
    depositAddress: order.depositAddress,
    chain: order.fundingMode === 'deposit' ? SELL_CHAIN : null,
    sendBefore: order.sendBefore ? new Date(order.sendBefore).toISOString() : null,
    txHash: order.txHash,
    createdAt: new Date(order.createdAt).toISOString(),
    paymentInstructions: paymentInstructions(order),
    paymentReference: order.paymentReference,
    walletId: order.walletId,
    payment: paymentView(order),
  };
}

/** order.* `data`: status is the one that produced the event; kesTotalAmount is what moved. */
export function orderEventData(order: OrderRecord, status: OrderStatus) {
  return {
    orderId: order.orderId,
    partnerReference: order.partnerReference,
    side: order.side,
    status,
    kesAmount: kes(order.kesAmount),
    feeKesAmount: kes(order.feeKes),
    kesTotalAmount: kes(order.kesTotalAmount),
    usdtAmount: usdt(order.usdtAmount),
    rate: rate(order.rate),
  };
}

/**
 * The sandbox bank's answer to a KES debit, steered by the amount's cents
 * (documented for partners): `.13` ambiguous (the bank's record later says
 * debited), `.14` cleanly refused; anything else accepted.
 */
export function sandboxDebitAnswer(kesTotalAmount: string): 'accepted' | 'ambiguous' | 'refused' {
  const cents = formatAmount(new Big(kesTotalAmount), 'KES').slice(-3);
  if (cents === '.13') return 'ambiguous';
  if (cents === '.14') return 'refused';
  return 'accepted';
}

/** The amount the caps count: the KES principal of the trade, on either side. */
export function capAmountKes(order: Pick<OrderRecord, 'kesAmount'>): Big {
  return new Big(order.kesAmount);
}

/**
 * The sandbox custodian's answer to collecting a balance-mode sell's USDT,
 * steered by usdtAmount's last two decimals (documented for partners): `13`
 * collection refused, `14` wallet ownership check failed; otherwise null (go on).
 */
export function sandboxCollectionAnswer(
  usdtAmount: string,
): 'USDT_COLLECTION_FAILED' | 'WALLET_OWNERSHIP_CHECK_FAILED' | null {
  const lastTwo = formatAmount(new Big(usdtAmount), 'USDT').slice(-2);
  if (lastTwo === '13') return 'USDT_COLLECTION_FAILED';
  if (lastTwo === '14') return 'WALLET_OWNERSHIP_CHECK_FAILED';
  return null;
}

/** The rail a pay-in buy is paid on (the request's paymentRail), and how the instructions name it (as GET /v1/funding does). */
export const PAY_IN_REQUEST_RAIL = 'mobile_money';
export const PAY_IN_INSTRUCTIONS_RAIL = 'mobile_money_paybill';
export const PAY_IN_INSTRUCTIONS =
  'Pay exactly kesAmount with M-Pesa (Lipa na M-Pesa, Pay Bill) to the paybill number before payBefore, entering reference exactly as the account number. ' +
  'The payment lands in your KES balance and funds this order; a payment that is short or late stays in your KES balance and does not fund it.';

function paymentInstructions(order: OrderViewRecord): PaymentInstructionsView | null {
  if (
    order.fundingMode !== 'pay_in' ||
    !order.paymentReference ||
    !order.paybill ||
    !order.beneficiaryName ||
    !order.payBefore
  )
    return null;
  return {
    rail: PAY_IN_INSTRUCTIONS_RAIL,
    paybill: order.paybill,
    payTo: order.paybill,
    beneficiaryName: order.beneficiaryName,
    reference: order.paymentReference,
    kesAmount: kes(order.kesTotalAmount),
    currency: 'KES',
    payBefore: new Date(order.payBefore).toISOString(),
    instructions: PAY_IN_INSTRUCTIONS,
  };
}

function paymentView(order: OrderViewRecord): OrderView['payment'] {
  if (!order.paymentMatchedAt || !order.paymentBankTransactionId) return null;
  return {
    railReference: order.paymentRailReference ?? '',
    bankTransactionId: order.paymentBankTransactionId,
    matchedAt: new Date(order.paymentMatchedAt).toISOString(),
  };
}
