import type { Config } from '../../../platform/config.js';
import { MailSender } from '../../../platform/mail.js';
import { parseRetryAfter } from '../../../platform/outbound/index.js';
import { MessageChannel } from '../templates/template.type.js';

/** A rendered message to one address. */
interface OutgoingMessage {
  channel: MessageChannel;
  to: string;
  subject: string | null;
  body: string;
  /** Email headers (a marketing email's `List-Unsubscribe` and `List-Unsubscribe-Post`). */
  headers?: Record<string, string>;
}

/** What a provider did: sent (or only recorded), or failed with the provider's own words (retried on a schedule). */
type SendResult = { ok: true; status: 'SENT' | 'RECORDED' } | { ok: false; error: string; retryAfterMs?: number };

export interface MessageProvider {
  /** `SMTP`, `SMS_WEBHOOK` or `RECORDED` (stored with each message). */
  readonly name: string;
  send(message: OutgoingMessage): Promise<SendResult>;
}

/** No provider configured: the message is rendered and recorded (readable in `messages`), nothing leaves. */
const recorded: MessageProvider = { name: 'RECORDED', send: async () => ({ ok: true, status: 'RECORDED' }) };

class SmtpProvider implements MessageProvider {
  readonly name = 'SMTP';

  constructor(private readonly sender: MailSender) {}

  async send(message: OutgoingMessage): Promise<SendResult> {
    const sent = await this.sender.send({ to: message.to, subject: message.subject ?? '', body: message.body, ...(message.headers ? { headers: message.headers } : {}) });
    return sent.ok ? { ok: true, status: 'SENT' } : sent;
  }
}

/** SMS through the operator's gateway: POST {to, body}; a 2xx is sent. */
class SmsWebhookProvider implements MessageProvider {
  readonly name = 'SMS_WEBHOOK';

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  async send(message: OutgoingMessage): Promise<SendResult> {
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: message.to, body: message.body }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = (await res.text().catch(() => '')).slice(0, 200);
      if (res.ok) return { ok: true, status: 'SENT' };
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after') ?? undefined);
      return { ok: false, error: `SMS gateway answered HTTP ${res.status}${text ? `: ${text}` : ''}`, ...(retryAfterMs ? { retryAfterMs } : {}) };
    } catch (err) {
      return { ok: false, error: `SMS gateway: ${err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : err instanceof Error ? err.message : String(err)}` };
    }
  }
}

/** The provider of each channel, from the configuration (one per process). */
export function messageProviders(config: Config): Record<MessageChannel, MessageProvider> {
  return {
    [MessageChannel.EMAIL]: config.smtpUrl ? new SmtpProvider(new MailSender(config.smtpUrl, config.smtpFrom, config.webhookTimeoutMs)) : recorded,
    [MessageChannel.SMS]: config.smsWebhookUrl ? new SmsWebhookProvider(config.smsWebhookUrl, config.webhookTimeoutMs) : recorded,
  };
}
