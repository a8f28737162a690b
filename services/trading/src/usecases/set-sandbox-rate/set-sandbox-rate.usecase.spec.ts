// Proves the sandbox pin use case checks its input before pinning and answers
// the pinned rate at 4 decimals with its observation time.
import { AppError } from '@platform/errors';
import type { SandboxRatePin } from '../../domain/sandbox-rate';
import { SetSandboxRateUseCase } from './set-sandbox-rate.usecase';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const observedAt = new Date('2024-11-21T08:00:00.000Z');

describe('SetSandboxRateUseCase', () => {
  it('pins and answers the pinned rate', async () => {
    const pins: SandboxRatePin[] = [];
    const useCase = new SetSandboxRateUseCase({
      pin: async (pin) => (pins.push(pin), { bid: pin.bid, ask: pin.ask, observedAt }),
    });
    expect(await useCase.execute({ partnerId, bid: '128.1', ask: '130.9876', halted: true })).toEqual({
      bid: '128.1000',
      ask: '130.9876',
      halted: true,
      observedAt: '2024-11-21T08:00:00.000Z',
    });
    expect(pins[0]?.halted).toBe(true);
  });

  it('refuses a bad pin without touching the feed', async () => {
    const pin = jest.fn();
    const useCase = new SetSandboxRateUseCase({ pin });
    await expect(useCase.execute({ partnerId, bid: '130', ask: '128', halted: false })).rejects.toBeInstanceOf(
      AppError,
    );
    expect(pin).not.toHaveBeenCalled();
  });
});
