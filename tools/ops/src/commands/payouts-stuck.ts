/**
 * `payouts stuck`: payout instructions (transfers and sell-order proceeds)
 * handed to the bank without an answer past PAYOUT_STUCK_AFTER_MS. The payouts
 * service keeps retrying them with the same bank reference (never paying
 * twice); this list is where an operator sees them and chases the bank. Exits
 * 1 when any is stuck, so it can run as a check.
 */
import type { payouts } from '@platform/proto';
import { EXIT_FAILED, EXIT_OK } from '../cli-error';
import { FlagReader, FlagValues } from '../flags';
import { defineCommand } from './command';

export type PayoutsStuckInput = Record<string, never>;

export function parsePayoutsStuck(values: FlagValues): PayoutsStuckInput {
  new FlagReader(values).done();
  return {};
}

function describeInstruction(instruction: payouts.StuckInstruction): string {
  const subject = instruction.transferId ? `transfer ${instruction.transferId}` : `order ${instruction.orderId}`;
  return `  ${instruction.instructionId}  ${subject}  KES ${instruction.amountKes}  ${instruction.status} since ${instruction.createdAt}  (${instruction.attempts} attempts)`;
}

export const payoutsStuck = defineCommand<PayoutsStuckInput, payouts.ListStuckInstructionsResponse>({
  name: 'payouts stuck',
  summary: 'List payout instructions without a bank answer past the stuck bound; exits 1 when any.',
  synopsis: '',
  flags: {},
  parse: parsePayoutsStuck,
  run: (_input, clients) => clients.payoutsOperator().listStuckInstructions({}),
  describe: (result) =>
    result.instructions.length === 0
      ? 'No stuck payout instructions.'
      : [
          `${result.instructions.length} stuck payout instruction(s):`,
          ...result.instructions.map(describeInstruction),
        ].join('\n'),
  exitStatus: (result) => (result.instructions.length === 0 ? EXIT_OK : EXIT_FAILED),
});
