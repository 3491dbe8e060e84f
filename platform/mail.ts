import nodemailer, { type Transporter } from 'nodemailer';

/** One email: plain text, or HTML when the body has markup. */
export interface Mail {
  to: string;
  subject: string;
  body: string;
  /** Extra headers (marketing email's `List-Unsubscribe` and `List-Unsubscribe-Post`). */
  headers?: Record<string, string>;
}

/** What sending did: sent, or failed with the server's words. */
export type MailResult = { ok: true } | { ok: false; error: string };

/**
 * The service's one SMTP sender (`SMTP_URL`, `SMTP_FROM`): flows' email steps and the webhook health
 * notices send through it. The timeouts bound a send to an unresponsive server (the URL may carry
 * its own too).
 */
export class MailSender {
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
    timeoutMs: number,
  ) {
    const withTimeouts = new URL(url);
    for (const key of ['connectionTimeout', 'greetingTimeout', 'socketTimeout']) if (!withTimeouts.searchParams.has(key)) withTimeouts.searchParams.set(key, String(timeoutMs));
    this.transport = nodemailer.createTransport(withTimeouts.toString());
  }

  async send(mail: Mail): Promise<MailResult> {
    // A body with markup goes as HTML (with no text part), plain text otherwise.
    const content = /<[a-z][\s\S]*>/i.test(mail.body) ? { html: mail.body } : { text: mail.body };
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, ...content, ...(mail.headers ? { headers: mail.headers } : {}) });
      return { ok: true };
    } catch (err) {
      return { ok: false, error: `SMTP: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
}

/** The sender the configuration asks for, or undefined when `SMTP_URL` is unset. */
export function mailSenderOf(config: { smtpUrl: string | undefined; smtpFrom: string; webhookTimeoutMs: number }): MailSender | undefined {
  return config.smtpUrl ? new MailSender(config.smtpUrl, config.smtpFrom, config.webhookTimeoutMs) : undefined;
}
