// Proves the order in which a transfer's checks run and are undone, with fakes
// at the peers and the repository that write one journal: a short balance at
// the hold answers INSUFFICIENT_KES_BALANCE after the hold is voided, the cap
// released and the claimed row deleted, in that order; a refusal before the
// cap releases nothing it never reserved; and a void that fails stops the
// unwinding (the cap and the row are left for the scheduler), is logged with
// the transfer id, and the caller still sees the original refusal.
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import type { TransferRequest } from '../../domain/transfer-request';
import type { TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';
import { TransferCheckDependencies, transferCheckSteps, transferSaga } from './transfer-checks';

const transferId = '33333333-3333-4333-8333-333333333333';
const partnerId = '11111111-1111-4111-8111-111111111111';

const request: TransferRequest = {
  rail: 'pesalink',
  accountNumber: '0123456789',
  accountName: 'Jane Doe',
  bankCode: '01',
  amountKes: new Big('1000.00'),
  idempotencyKey: 'key-1',
  partnerReference: 'ref-1',
};
const transfer = { transferId, partnerId, amountKes: '1000.00', feeKes: '50.00' } as TransferRecord;

function harness(fails: { recipient?: boolean; hold?: boolean; voidHold?: boolean }) {
  const journal: string[] = [];
  const warnings: Array<Record<string, unknown>> = [];
  const step = (name: string, failure?: unknown) => async () => {
    journal.push(name);
    if (failure) throw failure;
    return {} as never;
  };
  const deps: TransferCheckDependencies = {
    dataSource: { manager: {} } as DataSource,
    transfers: {
      recordVerification: step('recordVerification'),
      deleteCreating: step('deleteCreating'),
    } as unknown as TransfersRepository,
    bank: {
      verifyName: async () => {
        journal.push('verifyName');
        return { outcome: 'verified', accountName: 'Jane Doe' } as never;
      },
    },
    ledger: {
      getPartnerAccounts: async () => {
        journal.push('getPartnerAccounts');
        return { kesAccountId: 'kes-account' } as never;
      },
      placeHold: step('placeHold', fails.hold ? new AppError('LEDGER_INSUFFICIENT_FUNDS') : undefined),
      voidHold: step('voidHold', fails.voidHold ? new Error('ledger unreachable') : undefined),
      getHold: step('getHold'),
    },
    trading: { reserveDailyCap: step('reserveDailyCap'), releaseDailyCap: step('releaseDailyCap') },
    walletRegistry: {
      getCodeRecipient: step(
        'getCodeRecipient',
        fails.recipient ? new AppError('NO_ADMINISTRATOR_REGISTERED') : undefined,
      ),
    },
  } as TransferCheckDependencies;
  const logger = {
    warn: (_message: string, fields: Record<string, unknown>) => warnings.push(fields),
  } as unknown as Logger;
  const run = () =>
    transferSaga(logger, transferId).run(transferCheckSteps(deps, transfer, request, { recipient: null }));
  return { journal, warnings, run };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof AppError ? error.code : (error as Error).message;
  }
  return 'accepted';
}

describe('transferCheckSteps', () => {
  it('undoes a short balance newest first: the hold, the cap, then the claimed row', async () => {
    const { journal, warnings, run } = harness({ hold: true });
    await expect(codeOf(run())).resolves.toBe('INSUFFICIENT_KES_BALANCE');
    expect(journal).toEqual([
      'verifyName',
      'getPartnerAccounts',
      'recordVerification',
      'getCodeRecipient',
      'reserveDailyCap',
      'placeHold',
      'voidHold',
      'releaseDailyCap',
      'deleteCreating',
    ]);
    expect(warnings).toEqual([]);
  });

  it('gives back only the claimed row when refused before the cap', async () => {
    const { journal, run } = harness({ recipient: true });
    await expect(codeOf(run())).resolves.toBe('NO_ADMINISTRATOR_REGISTERED');
    expect(journal.slice(journal.indexOf('getCodeRecipient'))).toEqual(['getCodeRecipient', 'deleteCreating']);
  });

  it('leaves the cap and the row to the scheduler when the void fails, and still answers the refusal', async () => {
    const { journal, warnings, run } = harness({ hold: true, voidHold: true });
    await expect(codeOf(run())).resolves.toBe('INSUFFICIENT_KES_BALANCE');
    expect(journal.slice(journal.indexOf('placeHold'))).toEqual(['placeHold', 'voidHold']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].transferId).toBe(transferId);
  });
});
