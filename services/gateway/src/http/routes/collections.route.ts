/**
 * USD collections (spec sections 2 and 4; scope collections for POST, read for
 * GET). Creation is idempotent on partnerReference: the same body again → 200
 * with the original and `Idempotent-Replayed: true`; another body → 409
 * IDEMPOTENCY_KEY_REUSED. The list is the spec's bare array, newest first;
 * pagination is additive (`limit`, `cursor`; the next page's cursor in the
 * `X-Next-Cursor` header, absent on the last page).
 */
import type { RequestHandler } from 'express';
import { AppError, validationFailed } from '@platform/errors';
import type { collections } from '@platform/proto';
import { z } from 'zod';
import type { CollectionsApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { parseJsonObject, validateBody } from '../validation';
import { positiveAmount } from './amount-schemas';
import { isUuidParam } from './path-params';

const PARTNER_REFERENCE = /^[A-Za-z0-9._:-]{1,64}$/;
const PAYER_LABEL_LENGTH_MAX = 200;
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;
export const COLLECTION_STATUSES = ['open', 'received', 'crediting', 'credited', 'refunded', 'expired'] as const;
const LIST_QUERY_PARAMETERS = ['reference', 'status', 'from', 'to', 'limit', 'cursor'] as const;
const LIST_LIMIT_MAX = 100;
/** A reference as typed: the service checks its check symbol; spaces and hyphens are allowed for readability. */
const TYPED_REFERENCE = /^[A-Za-z0-9 -]{1,32}$/;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;
const LIMIT = /^[1-9]\d{0,2}$/;
/** ISO 8601: a date, or a date and time with seconds optional, fraction optional, and Z or an offset. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';

export const createCollectionSchema = z.object({
  currency: z.literal('USD'),
  partnerReference: z.string().regex(PARTNER_REFERENCE),
  payerLabel: z.string().max(PAYER_LABEL_LENGTH_MAX).regex(NO_CONTROL_CHARACTERS).refine((value) => value.trim().length > 0),
  expectedAmount: positiveAmount('USD').optional(),
}).strict();

export const sandboxDepositSchema = z.object({
  amount: positiveAmount('USD'),
  senderName: z.string().min(1).max(PAYER_LABEL_LENGTH_MAX).regex(NO_CONTROL_CHARACTERS).optional(),
  /** Additive: the rails' deposit id, so a test can report one deposit twice. */
  depositId: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/).optional(),
}).strict();

/** The collection as partners see it: spec fields first, additive ones after; amounts null until received. */
export function presentCollection(collection: collections.Collection) {
  const instructions = collection.depositInstructions;
  return {
    id: collection.id,
    reference: collection.reference,
    status: collection.status,
    currency: collection.currency,
    depositInstructions: instructions ? {
      beneficiaryName: instructions.beneficiaryName,
      bankName: instructions.bankName,
      routingNumber: instructions.routingNumber,
      accountNumber: `****${instructions.accountNumber.slice(-4)}`,
      rails: instructions.rails,
      depositMessage: instructions.depositMessage,
    } : null,
    // Fee terms are integers of at most 1,000,000,000 minor units (collections enforces it), exact as JSON numbers.
    fee: collection.fee ? {
      percentBps: collection.fee.percentBps,
      flatMinor: Number(collection.fee.flatMinor),
      capMinor: Number(collection.fee.capMinor),
      currency: collection.fee.currency,
    } : null,
    expectedAmount: collection.expectedAmount ?? null,
    grossAmount: collection.grossAmount ?? null,
    feeAmount: collection.feeAmount ?? null,
    netAmount: collection.netAmount ?? null,
    createdAt: collection.createdAt,
    partnerReference: collection.partnerReference,
    payerLabel: collection.payerLabel,
    amountMismatch: collection.amountMismatch ?? null,
    senderName: collection.senderName ?? null,
    refundReason: collection.refundReason ?? null,
    treasuryCreditTxId: collection.treasuryCreditTxId ?? null,
    expiresAt: collection.expiresAt,
  };
}

/** POST /v1/collections → 201 a new collection, 200 the original on a repeat. */
export function createCollectionHandler(deps: { collections: Pick<CollectionsApi, 'createCollection'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(createCollectionSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const result = await deps.collections.createCollection({
      partnerId: partnerAuthOf(res).partnerId,
      currency: body.currency,
      partnerReference: body.partnerReference,
      payerLabel: body.payerLabel,
      expectedAmount: body.expectedAmount,
    });
    if (!result.collection) throw new AppError('INTERNAL_ERROR');
    if (!result.created) res.setHeader('Idempotent-Replayed', 'true');
    res.status(result.created ? 201 : 200).json(presentCollection(result.collection));
  };
}

type ListQuery = Partial<Record<(typeof LIST_QUERY_PARAMETERS)[number], string>>;

const HOURS_MAX = 23;
const MINUTES_MAX = 59;
const SECONDS_MAX = 59;

/** Date, optional time and offset, captured: year, month, day, hours, minutes, seconds, offset hours, offset minutes. */
const ISO_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** JavaScript's Date rolls 2026-02-30 over into March; a partner's typo must be refused instead. */
function isRealCalendarTime(value: string): boolean {
  const parts = ISO_PARTS.exec(value);
  if (!parts) return false;
  const [year, month, day, hours, minutes, seconds, offsetHours, offsetMinutes] = parts.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  const dateReal = date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day;
  return dateReal && hours! <= HOURS_MAX && minutes! <= MINUTES_MAX && seconds! <= SECONDS_MAX
    && offsetHours! <= HOURS_MAX && offsetMinutes! <= MINUTES_MAX;
}

function isoTime(value: string): string | null {
  if (!ISO_8601.test(value) || !isRealCalendarTime(value)) return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
}

/** The list's query, each parameter at most once; every bad or unknown one is named. */
export function parseListQuery(rawQuery: string): ListQuery {
  const params = new URLSearchParams(rawQuery);
  const bad: string[] = [];
  const query: ListQuery = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    if (!(LIST_QUERY_PARAMETERS as readonly string[]).includes(name) || values.length !== 1) {
      bad.push(name);
      continue;
    }
    query[name as keyof ListQuery] = values[0];
  }
  const check = (name: keyof ListQuery, valid: (value: string) => boolean) => {
    const value = query[name];
    if (value !== undefined && !valid(value)) bad.push(name);
  };
  check('reference', (value) => TYPED_REFERENCE.test(value));
  check('status', (value) => (COLLECTION_STATUSES as readonly string[]).includes(value));
  check('from', (value) => isoTime(value) !== null);
  check('to', (value) => isoTime(value) !== null);
  check('limit', (value) => LIMIT.test(value) && Number(value) <= LIST_LIMIT_MAX);
  check('cursor', (value) => CURSOR.test(value));
  if (bad.length > 0) throw validationFailed(bad);
  return query;
}

function rawQueryOf(originalUrl: string): string {
  const index = originalUrl.indexOf('?');
  return index < 0 ? '' : originalUrl.slice(index + 1);
}

/** GET /v1/collections → 200 the partner's collections, newest first. */
export function listCollectionsHandler(deps: { collections: Pick<CollectionsApi, 'listCollections'> }): RequestHandler {
  return async (req, res) => {
    const query = parseListQuery(rawQueryOf(req.originalUrl));
    const result = await deps.collections.listCollections({
      partnerId: partnerAuthOf(res).partnerId,
      reference: query.reference,
      status: query.status,
      from: query.from === undefined ? undefined : isoTime(query.from)!,
      to: query.to === undefined ? undefined : isoTime(query.to)!,
      limit: query.limit === undefined ? 0 : Number(query.limit),
      cursor: query.cursor ?? '',
    });
    if (result.nextCursor) res.setHeader(NEXT_CURSOR_HEADER, result.nextCursor);
    res.status(200).json(result.collections.map(presentCollection));
  };
}

/** GET /v1/collections/{id} → 200; unknown, malformed or foreign → 404 COLLECTION_NOT_FOUND. */
export function getCollectionHandler(deps: { collections: Pick<CollectionsApi, 'getCollection'> }): RequestHandler {
  return async (req, res) => {
    const collectionId = req.params.id;
    if (!isUuidParam(collectionId)) throw new AppError('COLLECTION_NOT_FOUND');
    const collection = await deps.collections.getCollection({ partnerId: partnerAuthOf(res).partnerId, collectionId });
    res.status(200).json(presentCollection(collection));
  };
}

/**
 * POST /v1/sandbox/collections/{id}/deposits {amount, senderName?, depositId?}
 * → 201 the deposit (200 when depositId repeats a known one), with the
 * collection as it stands after the deposit.
 */
export function sandboxCollectionDepositHandler(deps: { collections: Pick<CollectionsApi, 'simulateDeposit'> }): RequestHandler {
  return async (req, res) => {
    const collectionId = req.params.id;
    const body = validateBody(sandboxDepositSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    if (!isUuidParam(collectionId)) throw new AppError('COLLECTION_NOT_FOUND');
    const result = await deps.collections.simulateDeposit({
      partnerId: partnerAuthOf(res).partnerId, collectionId, amount: body.amount, senderName: body.senderName, depositId: body.depositId ?? '',
    });
    if (!result.deposit || !result.collection) throw new AppError('INTERNAL_ERROR');
    res.status(result.created ? 201 : 200).json({
      depositId: result.deposit.depositId,
      collectionId: result.deposit.collectionId,
      amount: result.deposit.amount,
      currency: 'USD',
      senderName: result.deposit.senderName ?? null,
      disposition: result.deposit.disposition,
      refundReason: result.deposit.refundReason ?? null,
      receivedAt: result.deposit.receivedAt,
      collection: presentCollection(result.collection),
    });
  };
}

/** POST /v1/sandbox/collections/{id}/expire → 200: the sandbox clock ends an open collection's lifetime now. */
export function sandboxExpireCollectionHandler(deps: { collections: Pick<CollectionsApi, 'expireNow'> }): RequestHandler {
  return async (req, res) => {
    const collectionId = req.params.id;
    if (!isUuidParam(collectionId)) throw new AppError('COLLECTION_NOT_FOUND');
    const collection = await deps.collections.expireNow({ partnerId: partnerAuthOf(res).partnerId, collectionId });
    res.status(200).json(presentCollection(collection));
  };
}
