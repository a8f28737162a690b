import { randomBytes } from 'node:crypto';
import { tronAddressFromAccountId } from '@platform/chain';
import type { ChainCustodian } from './chain-custodian';

/** Sandbox custodian: a valid, random TRON address that no real chain knows. */
export class SandboxChainCustodian implements ChainCustodian {
  async allocateDepositAddress(): Promise<string> {
    return tronAddressFromAccountId(randomBytes(20));
  }
}
