/** A KES credit as the bank reports it. */
export interface RecordKesCreditCommand {
  bankTransactionId: string;
  accountReference: string;
  amountKes: string;
  rail: string;
  railReference: string | null;
  receivedAt: string;
}
