/**
 * The first half of an expiry, shared by transfers and USDT sends: under the
 * confirmation's lock, a code past its expiresAt (or already marked expired)
 * is marked expired, so a late code is refused from then on. Answers whether
 * the subject should now be expired; false when the code was used meanwhile,
 * or a resend moved its expiry on (the subject is then rescheduled).
 */
import type { DataSource, EntityManager } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { ConfirmationsRepository } from '../persistence/confirmations.repository';

export async function lapseConfirmation(
  dataSource: DataSource,
  confirmations: ConfirmationsRepository,
  subject: { partnerId: string; confirmationId: string },
  reschedule: (manager: EntityManager, expiresAt: Date) => Promise<void>,
): Promise<boolean> {
  return withTransaction(dataSource, async (manager) => {
    const confirmation = await confirmations.lock(manager, subject.partnerId, subject.confirmationId);
    if (!confirmation || confirmation.status === 'used') return false;
    if (confirmation.status !== 'expired' && confirmation.expiresAt.getTime() > Date.now()) {
      await reschedule(manager, confirmation.expiresAt);
      return false;
    }
    await confirmations.markExpired(manager, subject.confirmationId);
    return true;
  });
}
