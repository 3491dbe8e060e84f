import type { AccountsService } from '../platform/accounts/accounts.service.js';
import type { MailSender } from '../platform/mail.js';
import type { Logger } from '../platform/observability/logger.js';
import type { DisabledNotice, DisabledSubscription } from './delivery.service.js';

/** The email to the account's contact about a disabled subscription: what, why, since when, and how to recover. */
function disabledMail(d: DisabledSubscription, storeName: string): { subject: string; body: string } {
  return {
    subject: `Webhook subscription disabled: ${d.url}`,
    body: [
      `A webhook subscription of the store "${storeName}" (${d.store_id}) was disabled.`,
      '',
      `Subscription: ${d.id} (${d.topics.join(', ')})`,
      `Callback:     ${d.url}`,
      `Reason:       ${d.disabled_reason}`,
      `Failing since: ${d.failing_since?.toISOString() ?? '-'}`,
      `Last error:   ${d.last_error ?? '-'}`,
      '',
      'Its events are kept, in order, for 3 days. Fix the receiver, then re-enable the subscription',
      '(PUT /v2.2/webhooks/{id}): what it is owed goes out in order. Messages given up before it was',
      'disabled can be sent again with POST /v2.2/webhooks/{id}/recover {"since": ...}.',
    ].join('\n'),
  };
}

/**
 * Tells the account's contact (`createAccount`'s `contactEmail`, `setAccountContact`, or the CLI's
 * `set-contact`) by email that subscriptions were disabled, when SMTP is set. Best effort: the
 * store's `webhook.disabled` deliveries are the durable notice (stored with the disabling).
 */
export function emailDisabledNotice(accounts: AccountsService, mail: MailSender | undefined, logger: Logger): DisabledNotice {
  return async (disabled) => {
    if (!mail) return;
    const stores = await accounts.stores([...new Set(disabled.map((d) => d.store_id))]);
    for (const d of disabled) {
      const to = await accounts.contactOf(d.account_id);
      if (!to) continue;
      const sent = await mail.send({ to, ...disabledMail(d, stores.get(d.store_id)?.name ?? d.store_id) });
      if (!sent.ok) logger.warn({ subscriptionId: d.id, error: sent.error }, 'webhook disabled email not sent');
    }
  };
}
