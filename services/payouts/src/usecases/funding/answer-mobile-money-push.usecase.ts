import { randomInt } from 'node:crypto';
import { AppError } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Answer } from '../../domain/mobile-money-push';
import type { MobileMoneyPushesRepository, PushRecord } from '../../persistence/mobile-money-pushes.repository';
import type { PushCredits } from './push-credits';

const RAIL_REFERENCE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const RAIL_REFERENCE_LENGTH = 10;

/** A receipt code as the payer's rail makes one (M-Pesa style: 10 upper-case letters and digits). */
export function sandboxRailReference(): string {
  let code = '';
  for (let i = 0; i < RAIL_REFERENCE_LENGTH; i += 1)
    code += RAIL_REFERENCE_ALPHABET[randomInt(RAIL_REFERENCE_ALPHABET.length)];
  return code;
}

/**
 * Sandbox: the payer answers the prompt on the handset, and the bank tells us
 * (the path a real bank callback takes). Scoped to the partner: an unknown or
 * foreign push is NOT_FOUND. The first answer stands; a later one returns the
 * push as it stands. An approval is credited at once when the ledger answers,
 * else by the credit runner (the push is already durably approved).
 */
export class AnswerMobileMoneyPushUseCase {
  constructor(
    private readonly pushes: MobileMoneyPushesRepository,
    private readonly credits: Pick<PushCredits, 'creditNow'>,
  ) {}

  async execute(command: { partnerId: string; pushId: string; answer: Answer }): Promise<PushRecord> {
    if (!isUuid(command.pushId)) throw new AppError('MOBILE_MONEY_PUSH_NOT_FOUND');
    const push = await this.pushes.answer(command.partnerId, command.pushId, command.answer, sandboxRailReference());
    if (!push) throw new AppError('MOBILE_MONEY_PUSH_NOT_FOUND');
    if (push.status !== 'approved') return push;
    return (await this.credits.creditNow(push)) ?? push;
  }
}
