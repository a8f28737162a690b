/**
 * `collections configure`: a partner's USD collection fee terms,
 * fee = min(cap, ceil(gross × bps / 10000) + flat), in cents. A partner never
 * configured pays the collections service's defaults (COLLECTION_FEE_*_DEFAULT),
 * so `partner create` needs no step here. New terms apply to collections
 * opened afterwards; open ones keep the terms they were opened with.
 */
import type { collections } from '@platform/proto';
import { FlagReader, FlagValues } from '../flags';
import { labelled } from '../output';
import { defineCommand, PARTNER_FLAG, valueFlag } from './command';

const FEE_BPS_MAX = 10_000;
/** Ten million dollars in cents, the collections service's own bound. */
const FEE_MINOR_MAX = 1_000_000_000;

export interface CollectionsConfigureInput {
  partnerId: string;
  percentBps: number;
  flatMinor: string;
  capMinor: string;
}

export interface CollectionsConfigureResult {
  partnerId: string;
  percentBps: number;
  flatMinor: number;
  capMinor: number;
  currency: string;
}

export function parseCollectionsConfigure(values: FlagValues): CollectionsConfigureInput {
  const flags = new FlagReader(values);
  const required = ['fee-bps', 'fee-flat-minor', 'fee-cap-minor'] as const;
  const input = {
    partnerId: flags.uuid('partner', true),
    percentBps: flags.integer('fee-bps', { min: 0, max: FEE_BPS_MAX }, 0),
    flatMinor: String(flags.integer('fee-flat-minor', { min: 0, max: FEE_MINOR_MAX }, 0)),
    capMinor: String(flags.integer('fee-cap-minor', { min: 0, max: FEE_MINOR_MAX }, 0)),
  };
  for (const flag of required) if (values[flag] === undefined) flags.refuse(flag, 'required');
  if (!flags.hasProblems() && Number(input.capMinor) < Number(input.flatMinor))
    flags.refuse('fee-cap-minor', 'at least --fee-flat-minor');
  flags.done();
  return input;
}

function toResult(terms: collections.PartnerFeeTerms): CollectionsConfigureResult {
  const fee = terms.fee!;
  return {
    partnerId: terms.partnerId,
    percentBps: fee.percentBps,
    // Bounded by FEE_MINOR_MAX, so exact as numbers.
    flatMinor: Number(fee.flatMinor),
    capMinor: Number(fee.capMinor),
    currency: fee.currency,
  };
}

export const collectionsConfigure = defineCommand<CollectionsConfigureInput, CollectionsConfigureResult>({
  name: 'collections configure',
  summary: "Set a partner's USD collection fee terms (basis points, flat and cap in cents).",
  synopsis: '--partner ID --fee-bps N --fee-flat-minor N --fee-cap-minor N',
  flags: {
    partner: PARTNER_FLAG,
    'fee-bps': valueFlag(`N: the percentage part in basis points, an integer from 0 to ${FEE_BPS_MAX} (required)`),
    'fee-flat-minor': valueFlag(`N: the flat part in cents, an integer from 0 to ${FEE_MINOR_MAX} (required)`),
    'fee-cap-minor': valueFlag(
      `N: the cap in cents, an integer from 0 to ${FEE_MINOR_MAX}, at least --fee-flat-minor (required)`,
    ),
  },
  parse: parseCollectionsConfigure,
  run: async (input, clients) => toResult(await clients.collectionsAdmin().configureFees(input)),
  describe: (result) =>
    [
      `Collection fee terms of partner ${result.partnerId}:`,
      labelled([
        ['Percent', `${result.percentBps} bps`],
        ['Flat', `${result.flatMinor} cents`],
        ['Cap', `${result.capMinor} cents`],
      ]),
    ].join('\n'),
});
