import { constantTimeEqual, SealingKeyRing } from '@platform/crypto';
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { isValidSigningSecret, rotateSecrets, rotationOverlapSeconds } from '../../domain/endpoint-secrets';
import { checkEndpointUrl, EndpointTarget } from '../../domain/endpoint-url';
import type { PlatformMode } from '../../domain/platform-mode';
import type { DeliveriesRepository } from '../../persistence/deliveries.repository';
import type { EndpointRecord, EndpointsRepository } from '../../persistence/endpoints.repository';
import { HELD_DELIVERY_RETENTION_MS } from '../accept-event/accept-event.usecase';

export interface SetEndpointCommand {
  partnerId: string;
  url: string;
  signingSecret: string;
  /** 0 means the default (24 hours). */
  rotationOverlapSeconds: number;
}

export interface SetEndpointDependencies {
  dataSource: DataSource;
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
  mode: PlatformMode;
  /** Seals the new secret under its current key; opens the stored one under any key of the ring. */
  sealingKeys: SealingKeyRing;
  logger: Logger;
}

/**
 * Operator action: sets a partner's webhook URL and signing secret. A new
 * secret rotates: the old one keeps signing beside it for the overlap. The
 * secret is stored sealed and never logged or returned. Deliveries held while
 * the partner had no endpoint (the last HELD_DELIVERY_RETENTION_MS) are opened
 * in the same transaction, so they go out now. The change is audited with the
 * endpoint's host and whether the secret rotated, never the URL's path or query
 * (which may carry a token) nor the secret.
 */
export class SetEndpointUseCase {
  constructor(private readonly deps: SetEndpointDependencies) {}

  async execute(command: SetEndpointCommand): Promise<EndpointRecord> {
    const { target, overlapSeconds } = this.validate(command);
    let rotated = false;
    let opened = 0;
    const saved = await withTransaction(this.deps.dataSource, async (manager) => {
      const existing = await this.deps.endpoints.findForUpdate(manager, command.partnerId);
      const sameAsCurrent =
        existing !== null &&
        constantTimeEqual(this.deps.sealingKeys.open(existing.secretSealed), command.signingSecret);
      const stored =
        existing === null
          ? null
          : {
              current: existing.secretSealed,
              previous: existing.previousSecretSealed,
              previousExpiresAt: existing.previousSecretExpiresAt,
            };
      const next = rotateSecrets(
        stored,
        this.deps.sealingKeys.seal(command.signingSecret),
        sameAsCurrent,
        overlapSeconds,
        Date.now(),
      );
      rotated = existing !== null && !sameAsCurrent;
      const endpoint = await this.deps.endpoints.upsert(manager, {
        partnerId: command.partnerId,
        url: target.href,
        secretSealed: next.current,
        previousSecretSealed: next.previous,
        previousSecretExpiresAt: next.previousExpiresAt,
      });
      const heldSince = new Date(Date.now() - HELD_DELIVERY_RETENTION_MS);
      opened = await this.deps.deliveries.openHeld(command.partnerId, endpoint.url, heldSince, manager);
      await recordAudit(manager, {
        action: 'webhook_endpoint.set',
        partnerId: command.partnerId,
        // `rotated`: the secret changed, the previous one signing beside it for the overlap (a key named "secret" would be redacted).
        details: { host: target.hostname, created: existing === null, rotated, heldDeliveriesOpened: opened },
      });
      return endpoint;
    });
    this.deps.logger.info('webhook endpoint set', {
      partnerId: command.partnerId,
      host: target.hostname,
      rotated,
      heldDeliveriesOpened: opened,
    });
    return saved;
  }

  private validate(command: SetEndpointCommand): { target: EndpointTarget; overlapSeconds: number } {
    const bad: string[] = [];
    if (!isUuid(command.partnerId)) bad.push('partnerId');
    const check = checkEndpointUrl(command.url, this.deps.mode);
    if (!check.ok) bad.push('url');
    if (!isValidSigningSecret(command.signingSecret)) bad.push('signingSecret');
    let overlapSeconds = 0;
    try {
      overlapSeconds = rotationOverlapSeconds(command.rotationOverlapSeconds);
    } catch {
      bad.push('rotationOverlapSeconds');
    }
    if (bad.length > 0 || !check.ok) throw validationFailed(bad);
    return { target: check.target, overlapSeconds };
  }
}
