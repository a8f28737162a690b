/**
 * Per-partner collection fee terms, set by operators (`ops collections
 * configure`). A partner without terms of its own pays the configured
 * defaults, so `ops partner create` needs no collections step. Terms are
 * copied onto each collection at create: a change applies to new collections.
 * Each change is audited with the terms set.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { DataSource, EntityManager, recordAudit, withTransaction } from '@platform/persistence';
import { FeeTerms, feeTermsValid } from '../../domain/collection-fee';
import type { CollectionsRepository } from '../../persistence/collections.repository';

const MINOR_UNITS = /^(0|[1-9]\d{0,11})$/;

export interface FeeTermsResolver {
  termsFor(manager: EntityManager, partnerId: string): Promise<FeeTerms>;
}

export interface ConfigureFeesCommand {
  partnerId: string;
  percentBps: number;
  flatMinor: string;
  capMinor: string;
}

export class ConfigureFeesUseCase implements FeeTermsResolver {
  constructor(
    private readonly deps: { dataSource: DataSource; collections: CollectionsRepository; defaults: FeeTerms },
  ) {
    if (!feeTermsValid(deps.defaults)) throw new Error('default collection fee terms are invalid');
  }

  async termsFor(manager: EntityManager, partnerId: string): Promise<FeeTerms> {
    return (await this.deps.collections.findFeeTerms(manager, partnerId)) ?? this.deps.defaults;
  }

  async execute(command: ConfigureFeesCommand): Promise<{ partnerId: string; terms: FeeTerms }> {
    const bad: string[] = [];
    if (!isUuid(command.partnerId)) bad.push('partnerId');
    if (!MINOR_UNITS.test(command.flatMinor)) bad.push('flatMinor');
    if (!MINOR_UNITS.test(command.capMinor)) bad.push('capMinor');
    if (bad.length > 0) throw validationFailed(bad);
    const terms: FeeTerms = {
      percentBps: command.percentBps,
      flatMinor: BigInt(command.flatMinor),
      capMinor: BigInt(command.capMinor),
    };
    if (!feeTermsValid(terms))
      throw validationFailed(terms.capMinor < terms.flatMinor ? ['capMinor'] : ['percentBps', 'flatMinor', 'capMinor']);
    await withTransaction(this.deps.dataSource, async (manager) => {
      await this.deps.collections.upsertFeeTerms(manager, command.partnerId, terms);
      await recordAudit(manager, {
        action: 'collection_fees.configured',
        partnerId: command.partnerId,
        details: {
          percentBps: terms.percentBps,
          flatMinor: terms.flatMinor.toString(),
          capMinor: terms.capMinor.toString(),
        },
      });
    });
    return { partnerId: command.partnerId, terms };
  }
}
