/** Shared steps of the collections integration specs: a partner's calls through the gateway and the ops tool. */
import { randomUUID } from 'node:crypto';
import { PartnerHttpClient, runOps, TestPartner } from '@platform/testing';

export const ISO_TIMESTAMP_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const REFERENCE = /^[0-9A-HJKMNP-TV-Y]{11}$/;

export interface CollectionView {
  id: string;
  reference: string;
  status: string;
  currency: string;
  depositInstructions: {
    beneficiaryName: string;
    bankName: string;
    routingNumber: string;
    accountNumber: string;
    rails: string[];
    depositMessage: string;
  };
  fee: { percentBps: number; flatMinor: number; capMinor: number; currency: string };
  expectedAmount: string | null;
  grossAmount: string | null;
  feeAmount: string | null;
  netAmount: string | null;
  createdAt: string;
  partnerReference: string;
  payerLabel: string;
  amountMismatch: boolean | null;
  senderName: string | null;
  refundReason: string | null;
  treasuryCreditTxId: string | null;
  expiresAt: string;
}

export interface DepositView {
  depositId: string;
  collectionId: string;
  amount: string;
  currency: string;
  senderName: string | null;
  disposition: 'accepted' | 'refunded';
  refundReason: string | null;
  receivedAt: string;
  collection: CollectionView;
}

export async function createCollection(
  http: PartnerHttpClient,
  overrides: Record<string, unknown> = {},
): Promise<CollectionView> {
  const response = await http.post<CollectionView>('/v1/collections', {
    currency: 'USD',
    partnerReference: `inv-${randomUUID()}`,
    payerLabel: 'Jane Payer',
    ...overrides,
  });
  expect(response.status).toBe(201);
  return response.body;
}

export async function readCollection(http: PartnerHttpClient, id: string): Promise<CollectionView> {
  const response = await http.get<CollectionView>(`/v1/collections/${id}`);
  if (response.status !== 200) throw new Error(`GET /v1/collections/${id} answered ${response.status}`);
  return response.body;
}

export async function deposit(
  http: PartnerHttpClient,
  collectionId: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: DepositView }> {
  const response = await http.post<DepositView>(`/v1/sandbox/collections/${collectionId}/deposits`, body);
  return { status: response.status, body: response.body };
}

export async function configureFees(
  partner: TestPartner,
  bps: number,
  flatMinor: number,
  capMinor: number,
): Promise<void> {
  await runOps([
    'collections',
    'configure',
    '--partner',
    partner.partnerId,
    '--fee-bps',
    String(bps),
    '--fee-flat-minor',
    String(flatMinor),
    '--fee-cap-minor',
    String(capMinor),
  ]);
}

export async function usdBalance(
  http: PartnerHttpClient,
): Promise<{ available: string; held: string; accountId: string }> {
  const response =
    await http.get<Array<{ accountId: string; currency: string; available: string; held: string }>>('/v1/balances');
  expect(response.status).toBe(200);
  expect(response.body.map((balance) => balance.currency)).toEqual(['KES', 'USDT', 'USD']);
  return response.body[2]!;
}
