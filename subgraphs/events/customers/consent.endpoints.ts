import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { inboundPhone, maskAddress, smsKeyword } from './consent.rules.js';
import type { ConsentService } from './consent.service.js';

/** What the unsubscribe page shows (null: the token is no token this service signed). */
export interface UnsubscribeView {
  storeName: string;
  channel: 'email' | 'sms';
  /** The address, masked (`a***@example.com`). */
  address: string;
  unsubscribed: boolean;
}

/** An inbound SMS as the common providers post it, read from its form or JSON body. */
export interface InboundSms {
  from: string;
  text: string;
}

/**
 * The consent endpoints customers and SMS providers reach without credentials (the HTTP app mounts
 * them: `GET`/`POST /u/{token}`, `POST /sms/inbound/{storeId}`): the signed token, or the store's
 * inbound SMS secret, is the only authority; nothing else is read from the request.
 */
export interface MessagingEndpoints {
  unsubscribePage(token: string): Promise<UnsubscribeView | null>;
  /** Unsubscribes the token's customer from marketing on its channel; false when the token is not valid. */
  unsubscribe(token: string, method: 'UNSUBSCRIBE_LINK' | 'ONE_CLICK'): Promise<boolean>;
  /** An inbound SMS: false when the secret is not the store's (nothing is read or written then). */
  inboundSms(storeId: string, secret: string, message: InboundSms): Promise<{ allowed: boolean; action: 'stopped' | 'started' | null }>;
}

const STORE_ID = /^[A-Za-z0-9_-]{1,100}$/;

export function messagingEndpoints(consent: ConsentService, accounts: AccountsService): MessagingEndpoints {
  const storeName = async (storeId: string) => (await accounts.stores([storeId])).get(storeId)?.name ?? null;
  return {
    async unsubscribePage(token) {
      const target = await consent.unsubscribeTarget(token, storeName);
      if (!target) return null;
      return { storeName: target.storeName, channel: target.claim.channel, address: maskAddress(target.address), unsubscribed: target.status === 'unsubscribed' };
    },
    async unsubscribe(token, method) {
      const target = await consent.unsubscribeTarget(token, storeName);
      if (!target) return false;
      await consent.unsubscribe(target.claim, method);
      return true;
    },
    async inboundSms(storeId, secret, message) {
      // Only what a store id can be reaches the database (a path segment may hold anything).
      if (!STORE_ID.test(storeId) || !(await consent.inboundSmsAllowed(storeId, secret))) return { allowed: false, action: null };
      const keyword = smsKeyword(message.text);
      const phone = inboundPhone(message.from);
      if (!keyword || !phone) return { allowed: true, action: null };
      return { allowed: true, action: await consent.inboundSms(storeId, phone, keyword) };
    },
  };
}
