// Proves a sandbox deposit is recorded, then that collection's credit step runs at once, and the answer is the
// deposit with the collection read after both; a refused deposit runs no credit step. Fakes record the calls.
import { AppError } from '@platform/errors';
import type { CollectionRecord } from '../../domain/collection';
import type { DepositRecord } from '../../persistence/deposits.repository';
import { SimulateDepositUseCase } from './simulate-deposit.usecase';

const COMMAND = {
  partnerId: 'partner-1',
  collectionId: 'collection-1',
  depositId: 'deposit-1',
  amount: '250.00',
  senderName: null,
};

function stand(refused: boolean) {
  const calls: string[] = [];
  const useCase = new SimulateDepositUseCase({
    recordDeposit: {
      execute: async (command) => {
        calls.push(`record ${command.depositId}`);
        if (refused) throw new AppError('IDEMPOTENCY_KEY_REUSED');
        return { deposit: { depositId: command.depositId } as DepositRecord, created: true };
      },
    },
    creditCollections: {
      execute: async (onlyId) => {
        calls.push(`credit ${onlyId}`);
        return 1;
      },
    },
    getCollection: {
      execute: async (query) => {
        calls.push(`get ${query.partnerId} ${query.collectionId}`);
        return { id: query.collectionId, status: 'credited' } as CollectionRecord;
      },
    },
  });
  return { useCase, calls };
}

it('records the deposit, credits that collection at once and answers the collection as it then stands', async () => {
  const { useCase, calls } = stand(false);
  const result = await useCase.execute(COMMAND);
  expect(result).toEqual({
    deposit: { depositId: 'deposit-1' },
    collection: { id: 'collection-1', status: 'credited' },
    created: true,
  });
  expect(calls).toEqual(['record deposit-1', 'credit collection-1', 'get partner-1 collection-1']);
});

it('runs no credit step when the deposit is refused', async () => {
  const { useCase, calls } = stand(true);
  await expect(useCase.execute(COMMAND)).rejects.toThrow('IDEMPOTENCY_KEY_REUSED');
  expect(calls).toEqual(['record deposit-1']);
});
