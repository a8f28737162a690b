/** Where a rendered message goes. The message id is the notifier's, for tracing. */
export interface OutgoingMail {
  messageId: string;
  to: string;
  subject: string;
  /** Carries the code in clear: held in memory for the send only, never logged. */
  text: string;
}

export interface MailTransport {
  readonly name: 'smtp' | 'sandbox';
  /** Resolves once the transport has accepted the message; rejects when it could not. */
  deliver(mail: OutgoingMail): Promise<void>;
  close(): void;
}
