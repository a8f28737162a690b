/** What a resent code's message says about its subject (the notifier's template variables, without expiresAt). */
import type { EntityManager } from '@platform/persistence';
import type { ConfirmationCodeMessage } from '../../adapters/peers/confirmation-code-sender';
import type { Confirmation } from '../../domain/confirmation-code';
import { maskAccountNumber } from '../../domain/ids';
import type { TransfersRepository } from '../../persistence/transfers.repository';
import type { UsdtSendsRepository } from '../../persistence/usdt-sends.repository';

type Description = Pick<ConfirmationCodeMessage, 'kind' | 'variables'>;

export function subjectDescriber(transfers: TransfersRepository, sends: UsdtSendsRepository) {
  return async (manager: EntityManager, confirmation: Confirmation): Promise<Description> => {
    if (confirmation.subjectType === 'usdt_send') {
      const send = await sends.findById(manager, confirmation.subjectId);
      if (!send) throw new Error(`confirmation ${confirmation.confirmationId} names a missing usdt send`);
      return { kind: 'usdt_send_confirmation', variables: { amount: send.usdtAmount, address: send.toAddress ?? '' } };
    }
    if (confirmation.subjectType === 'transfer_batch') {
      const items = await transfers.listByConfirmation(manager, confirmation.confirmationId);
      return { kind: 'batch_confirmation', variables: { itemCount: String(items.length) } };
    }
    const transfer = await transfers.findById(manager, confirmation.subjectId);
    if (!transfer) throw new Error(`confirmation ${confirmation.confirmationId} names a missing transfer`);
    return {
      kind: 'transfer_confirmation',
      variables: {
        amount: transfer.amountKes,
        currency: 'KES',
        destination: maskAccountNumber(transfer.accountNumber),
      },
    };
  };
}
