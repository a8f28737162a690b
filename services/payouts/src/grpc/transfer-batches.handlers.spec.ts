// Proves how a batch's status is read from its confirmation and its transfers:
// failed without a confirmation (no item accepted), awaiting while the code is
// live or locked, confirmed while items are on their way, completed once every
// item is final, expired once the code lapsed.
import type { Confirmation } from '../domain/confirmation-code';
import type { TransferRecord } from '../persistence/transfers.repository';
import { batchStatus } from './transfer-batches.handlers';

const confirmation = (status: Confirmation['status']) => ({ status }) as Confirmation;
const transfer = (status: TransferRecord['status']) => ({ status }) as TransferRecord;

describe('batchStatus', () => {
  it('reads each stage of a batch', () => {
    expect(batchStatus(null, [])).toBe('failed');
    expect(batchStatus(confirmation('live'), [transfer('awaiting_confirmation')])).toBe('awaiting_confirmation');
    expect(batchStatus(confirmation('locked'), [transfer('awaiting_confirmation')])).toBe('awaiting_confirmation');
    expect(batchStatus(confirmation('used'), [transfer('settled'), transfer('confirmed')])).toBe('confirmed');
    expect(batchStatus(confirmation('used'), [transfer('settled'), transfer('failed')])).toBe('completed');
    expect(batchStatus(confirmation('expired'), [transfer('awaiting_confirmation')])).toBe('expired');
    expect(batchStatus(confirmation('locked'), [transfer('expired'), transfer('expired')])).toBe('expired');
  });
});
