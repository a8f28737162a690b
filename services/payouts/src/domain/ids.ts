/** Account numbers are shown as "****" + last four everywhere. */
export function maskAccountNumber(accountNumber: string): string {
  return `****${accountNumber.slice(-4)}`;
}
