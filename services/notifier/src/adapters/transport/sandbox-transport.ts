import type { MailTransport, OutgoingMail } from './mail-transport';

/**
 * Sandbox mode: nothing leaves the platform. The message row the notifier
 * writes (with its code) is the stored outbox, read through
 * `GET /v1/sandbox/outbox`; this transport only accepts.
 */
export class SandboxTransport implements MailTransport {
  readonly name = 'sandbox' as const;

  async deliver(_mail: OutgoingMail): Promise<void> {
    // Stored by the caller in the same transaction; there is no outside party to reach.
  }

  close(): void {}
}
