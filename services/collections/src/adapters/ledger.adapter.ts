/**
 * Crediting a collection's net through the ledger: one balanced USD entry,
 * usd_rails_clearing −gross, the partner's USD account +net, fee_revenue +fee
 * (left out when the fee is zero: the ledger refuses zero postings). The entry
 * id is the collection's credit_entry_id, made and stored before the first
 * call, so every retry posts the same entry at most once.
 */
import type { PromiseClient } from '@platform/grpc';
import { Big, formatAmount } from '@platform/money';
import { ledger } from '@platform/proto';
import { ServiceAccounts } from '@platform/saga';

export type LedgerClient = PromiseClient<typeof ledger.LedgerService>;

export interface CollectionCredit {
  entryId: string;
  partnerId: string;
  collectionId: string;
  reference: string;
  grossAmount: string;
  feeAmount: string;
  netAmount: string;
}

export interface LedgerCredits {
  /** Posts the credit (idempotent on entryId); resolves with the entry id. Rejects with an AppError. */
  credit(credit: CollectionCredit): Promise<string>;
  /** True while a credit could get through now (the client's channel and breaker; no network); absent: unknown. */
  reachable?(): boolean;
}

const CREDIT_ENTRY_KIND = 'collection_credit';

export class GrpcLedgerCredits implements LedgerCredits {
  private readonly serviceAccounts: ServiceAccounts;

  constructor(
    private readonly client: Pick<LedgerClient, 'getPartnerAccounts' | 'getServiceAccount' | 'postEntry' | 'reachable'>,
  ) {
    this.serviceAccounts = new ServiceAccounts(client);
  }

  reachable(): boolean {
    return this.client.reachable();
  }

  async credit(credit: CollectionCredit): Promise<string> {
    const accounts = await this.client.getPartnerAccounts({ partnerId: credit.partnerId });
    const clearing = await this.serviceAccounts.id('usd_rails_clearing', 'USD');
    const postings = [
      { accountId: clearing, amount: formatAmount(new Big(credit.grossAmount).times(-1), 'USD') },
      { accountId: accounts.usdAccountId, amount: credit.netAmount },
    ];
    if (new Big(credit.feeAmount).gt(0))
      postings.push({ accountId: await this.serviceAccounts.id('fee_revenue', 'USD'), amount: credit.feeAmount });
    const entry = await this.client.postEntry({
      entryId: credit.entryId,
      kind: CREDIT_ENTRY_KIND,
      partnerId: credit.partnerId,
      postings,
      metadata: { collectionId: credit.collectionId, reference: credit.reference },
    });
    return entry.entryId;
  }
}
