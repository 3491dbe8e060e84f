import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { AccountsService } from './accounts/accounts.service.js';

/**
 * Secrets the service must send later (a webhook subscriber's bearer token, signing secrets, a flow's
 * webhook step token) cannot be hashed: they are sealed with AES-256-GCM under a key generated once
 * per database and kept in the platform's settings, apart from the schemas that hold the sealed
 * values, so a copy of those tables alone reveals none.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secret key must be 32 bytes');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unreadable sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }
}

/**
 * The one box of the database, opened on first use and kept: its key is made by the first process
 * that needs it and shared by all. Every part that seals or opens secrets takes this opener (the
 * runtime gives each module the same one), so the key is read once per process. A failed read is
 * tried again by the next caller.
 */
export function secretBoxOf(accounts: AccountsService): () => Promise<SecretBox> {
  let box: Promise<SecretBox> | undefined;
  return () =>
    (box ??= (async () => {
      // The setting keeps its first name: databases made before flows sealed secrets hold the key under it.
      const key = await accounts.sharedSetting('webhook_secret_key', () => randomBytes(32).toString('base64'));
      return new SecretBox(Buffer.from(key, 'base64'));
    })().catch((err: unknown) => {
      box = undefined;
      throw err;
    }));
}
