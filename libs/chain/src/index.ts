/**
 * Chain address formats, shared by the services that mint addresses (ledger)
 * and those that accept them from partners (wallet-registry), so there is one
 * implementation of each check.
 */
export {
  base58Decode,
  base58Encode,
  isValidTronAddress,
  tronAddressFromAccountId,
  TRON_ADDRESS_LENGTH,
} from './tron-address';
