/**
 * The ledger's service accounts a saga posts to (fee revenue, the clearing
 * accounts, treasury, suspense), by code and currency. Their ids never change
 * once the ledger opened them, so each is asked for once per process and
 * remembered: the set is fixed and small, so the map needs no bound.
 */

/** The service accounts the ledger opens (ledger.v1 GetServiceAccountRequest.code). */
export type ServiceAccountCode =
  'treasury' | 'fee_revenue' | 'suspense' | 'bank_clearing' | 'chain_clearing' | 'usd_rails_clearing';

export type ServiceAccountCurrency = 'KES' | 'USDT' | 'USD';

/** The one ledger call the lookup makes (the service's ledger client). */
export interface ServiceAccountsLedger {
  getServiceAccount(request: { code: string; currency: string }): Promise<{ accountId: string }>;
}

export class ServiceAccounts {
  private readonly ids = new Map<string, string>();

  constructor(private readonly ledger: ServiceAccountsLedger) {}

  /** The account's id; rejects with whatever the ledger call rejects with (an AppError from a gRPC client). */
  async id(code: ServiceAccountCode, currency: ServiceAccountCurrency): Promise<string> {
    const key = `${code}:${currency}`;
    const known = this.ids.get(key);
    if (known) return known;
    const account = await this.ledger.getServiceAccount({ code, currency });
    this.ids.set(key, account.accountId);
    return account.accountId;
  }
}
