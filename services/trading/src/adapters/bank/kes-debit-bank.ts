/**
 * The bank that debits a partner's KES virtual account for a debit-first buy.
 * `debit` may answer ambiguous (a timeout, an unclear reply); `lookup` reads the
 * bank's own record of the debit later, which is how reconciliation resolves it.
 */
import { sandboxDebitAnswer } from '../../domain/order';

export type DebitAnswer = 'accepted' | 'ambiguous' | 'refused';

export interface KesDebitBank {
  debit(request: { orderId: string; amountKes: string }): Promise<DebitAnswer>;
  lookup(request: { orderId: string; amountKes: string }): Promise<'debited' | 'not_debited'>;
}

/**
 * Sandbox bank: answers from the amount's cents (`.13` ambiguous, `.14`
 * refused). Its record of an ambiguous debit says debited (the money left), so
 * reconciliation settles such orders; a refused one was never debited.
 */
export class SandboxKesDebitBank implements KesDebitBank {
  async debit(request: { orderId: string; amountKes: string }): Promise<DebitAnswer> {
    return sandboxDebitAnswer(request.amountKes);
  }

  async lookup(request: { orderId: string; amountKes: string }): Promise<'debited' | 'not_debited'> {
    return sandboxDebitAnswer(request.amountKes) === 'refused' ? 'not_debited' : 'debited';
  }
}

/** Production until the real bank's debit API is integrated: every debit is cleanly refused (nothing is taken). */
export class UnconfiguredKesDebitBank implements KesDebitBank {
  async debit(): Promise<DebitAnswer> {
    return 'refused';
  }

  async lookup(): Promise<'debited' | 'not_debited'> {
    return 'not_debited';
  }
}
