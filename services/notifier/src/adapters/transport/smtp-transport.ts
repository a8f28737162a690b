import nodemailer, { Transporter } from 'nodemailer';
import type { MailTransport, OutgoingMail } from './mail-transport';

/** Bounds on one SMTP conversation, so a stuck server cannot hold a request. */
export const SMTP_CONNECTION_TIMEOUT_MS = 5_000;
export const SMTP_GREETING_TIMEOUT_MS = 5_000;
export const SMTP_SOCKET_TIMEOUT_MS = 10_000;

export interface SmtpSettings {
  /** smtp:// or smtps:// with credentials, e.g. smtps://user:pass@mail.example.net:465 */
  url: string;
  from: string;
}

/** Production transport: SMTP through nodemailer, plain text only. */
export class SmtpTransport implements MailTransport {
  readonly name = 'smtp' as const;
  private readonly transporter: Transporter;

  constructor(private readonly settings: SmtpSettings) {
    const url = new URL(settings.url);
    this.transporter = nodemailer.createTransport({
      host: url.hostname,
      port: url.port ? Number.parseInt(url.port, 10) : undefined,
      secure: url.protocol === 'smtps:',
      auth: url.username
        ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
        : undefined,
      // Plain smtp:// must still upgrade with STARTTLS: codes never cross the network in clear.
      requireTLS: url.protocol === 'smtp:',
      connectionTimeout: SMTP_CONNECTION_TIMEOUT_MS,
      greetingTimeout: SMTP_GREETING_TIMEOUT_MS,
      socketTimeout: SMTP_SOCKET_TIMEOUT_MS,
      logger: false,
      debug: false,
    });
  }

  async deliver(mail: OutgoingMail): Promise<void> {
    await this.transporter.sendMail({
      from: this.settings.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      headers: { 'X-Notifier-Message-Id': mail.messageId },
    });
  }

  close(): void {
    this.transporter.close();
  }
}
