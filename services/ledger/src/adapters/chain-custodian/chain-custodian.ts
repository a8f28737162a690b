/** The chain custodian holds USDT on TRON for partners. Only deposit-address allocation is needed so far. */
export interface ChainCustodian {
  /** A fresh deposit address for one partner, permanent for that partner. */
  allocateDepositAddress(partnerId: string): Promise<string>;
}
