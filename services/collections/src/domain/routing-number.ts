/**
 * ABA routing numbers: 9 digits whose weighted sum with weights 3, 7, 1
 * repeating is a multiple of 10. Deposit instructions only ever show one that
 * passes, so a payer's bank never refuses the number itself.
 */
const ROUTING_NUMBER = /^\d{9}$/;
const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

export function isValidAbaRoutingNumber(value: string): boolean {
  if (!ROUTING_NUMBER.test(value)) return false;
  const total = WEIGHTS.reduce((sum, weight, index) => sum + weight * Number(value[index]), 0);
  return total % 10 === 0 && value !== '000000000';
}

/** Account numbers are shown as their last four digits only. */
export function maskAccountNumber(accountNumber: string): string {
  return `****${accountNumber.slice(-4)}`;
}
