import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { AccountsService } from './accounts/accounts.service.js';

/**
 * Encryption for secrets the service must read back (a signing secret, a
 * bearer token it sends): AES-256-GCM under a key generated once per database
 * and shared by every process through the platform settings. Stored form:
 * `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static async open(accounts: AccountsService): Promise<SecretBox> {
    const key = await accounts.sharedSetting('secret_box_key', () => randomBytes(32).toString('base64'));
    return new SecretBox(Buffer.from(key, 'base64'));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
