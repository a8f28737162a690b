import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Partner } from '../../domain/partner';
import type { PartnersRepository } from '../../persistence/partners.repository';

/** Operator query: one partner's directory entry. */
export class GetPartnerUseCase {
  constructor(private readonly partners: PartnersRepository) {}

  async execute(command: { partnerId: string }): Promise<Partner> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const partner = await this.partners.find(command.partnerId);
    if (!partner) throw new AppError('PARTNER_NOT_FOUND');
    return partner;
  }
}
