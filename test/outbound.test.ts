import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCallbackUrl, deliver, generateSigningSecret, retryDelayMs, signatureHeaders, type OutboundMessage } from '../platform/outbound/index.js';
import { startReceiver, type Receiver } from './support/receiver.js';

const ALLOWED = ['127.0.0.1'];

describe('outbound HTTP: signing, outcomes, the SSRF guard', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const message = (overrides: Partial<OutboundMessage> = {}): OutboundMessage => ({
    url: receiver.url,
    body: JSON.stringify({ type: 'created', at: new Date().toISOString(), note: 'é ✓' }),
    messageId: 'msg_test_1',
    timeoutMs: 2000,
    allowedHosts: ALLOWED,
    ...overrides,
  });

  it('signs the exact bytes sent; the standardwebhooks package verifies the signature', async () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    receiver.answer(() => ({ status: 200 }));
    const result = await deliver(message({ signingSecret: secret, headers: { authorization: 'Bearer tok_123' } }));
    expect(result).toMatchObject({ outcome: 'succeeded', status: 200 });
    const got = receiver.received.at(-1)!;
    expect(got.headers.authorization).toBe('Bearer tok_123');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe('msg_test_1');
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(got.body));
    // A different secret does not verify.
    expect(() => new Webhook(generateSigningSecret()).verify(got.body, got.headers as Record<string, string>)).toThrow();
  });

  it('signatureHeaders matches the reference implementation for a fixed input', () => {
    const secret = generateSigningSecret();
    const body = '{"a":1}';
    const headers = signatureHeaders(secret, 'msg_1', 1_700_000_000, body);
    const reference = new Webhook(secret).sign('msg_1', new Date(1_700_000_000 * 1000), body);
    expect(headers['webhook-signature']).toBe(reference);
    expect(headers['webhook-timestamp']).toBe('1700000000');
  });

  it('any status other than 2xx fails, redirects included (never followed)', async () => {
    for (const status of [500, 404, 302, 301, 410]) {
      receiver.answer(() => ({ status, headers: status < 400 ? { location: 'http://127.0.0.1:1/elsewhere' } : undefined }));
      const before = receiver.received.length;
      const result = await deliver(message());
      expect(result, String(status)).toMatchObject({ outcome: 'failed', status, error: `HTTP ${status}` });
      expect(receiver.received.length).toBe(before + 1);
    }
  });

  it('reads Retry-After (seconds or HTTP date) on 429 and 503', async () => {
    receiver.answer(() => ({ status: 429, headers: { 'retry-after': '7' } }));
    expect(await deliver(message())).toMatchObject({ outcome: 'failed', status: 429, retryAfterMs: 7000 });
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    receiver.answer(() => ({ status: 503, headers: { 'retry-after': inTenSeconds } }));
    const result = await deliver(message());
    expect(result.retryAfterMs).toBeGreaterThan(7000);
    expect(result.retryAfterMs).toBeLessThanOrEqual(10_000);
    receiver.answer(() => ({ status: 500, headers: { 'retry-after': '7' } }));
    expect((await deliver(message())).retryAfterMs).toBeUndefined();
  });

  it('a receiver that does not answer within the timeout fails as a timeout', async () => {
    receiver.answer(() => 'hang');
    const result = await deliver(message({ timeoutMs: 300 }));
    expect(result).toMatchObject({ outcome: 'failed', error: 'timed out after 300 ms' });
    expect(result.status).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('a connection error fails', async () => {
    const result = await deliver(message({ url: 'http://127.0.0.1:1/closed' }));
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('refuses private and loopback targets that the configuration does not allow, before any byte is sent', async () => {
    receiver.answer(() => ({ status: 200 }));
    const before = receiver.received.length;
    const port = receiver.port;
    for (const url of [
      `http://127.0.0.1:${port}/hook`, // not https, not allowed
      `https://127.0.0.1:${port}/hook`, // literal loopback
      `https://[::ffff:127.0.0.1]:${port}/hook`, // IPv4-mapped loopback
      `https://localhost:${port}/hook`, // a name resolving to loopback: refused by the connect-time lookup
    ]) {
      const result = await deliver(message({ url, allowedHosts: [] }));
      expect(result.outcome, url).toBe('refused');
      expect(result.error, url).toBeTruthy();
    }
    expect(receiver.received.length).toBe(before);
  });

  it('checks the address connected to, not the name: a hostname allowed at save time that resolves to loopback now is refused', async () => {
    // No name rule refuses `localhost` at delivery: only the address the lookup returns gives it away,
    // which is what a rebinding name looks like when it is used.
    const result = await deliver(message({ url: `https://localhost:${receiver.port}/hook`, allowedHosts: [] }));
    expect(result).toMatchObject({ outcome: 'refused' });
    expect(result.error).toMatch(/loopback/);
  });
});

describe('checkCallbackUrl', () => {
  const refused = async (url: string, allowed: string[] = []) => {
    const reason = await checkCallbackUrl(url, allowed);
    expect(reason, url).not.toBeNull();
    return reason!;
  };

  it('accepts https to a public address, and allowed hosts over http', async () => {
    expect(await checkCallbackUrl('https://93.184.215.14/hook', [])).toBeNull();
    expect(await checkCallbackUrl('https://[2606:4700::1111]/hook', [])).toBeNull();
    expect(await checkCallbackUrl('http://127.0.0.1:8080/hook', ['127.0.0.1'])).toBeNull();
    expect(await checkCallbackUrl('http://localhost:8080/hook', ['localhost'])).toBeNull();
    expect(await checkCallbackUrl('http://[::1]:8080/hook', ['::1'])).toBeNull();
  });

  it('refuses http, other schemes, credentials in the URL and malformed URLs', async () => {
    expect(await refused('http://93.184.215.14/hook')).toMatch(/https/);
    expect(await refused('ftp://93.184.215.14/hook')).toMatch(/https/);
    expect(await refused('not a url')).toMatch(/absolute URL/);
    expect(await refused('https://user:pw@93.184.215.14/hook')).toMatch(/credentials/);
  });

  it('refuses loopback, private, link-local, multicast and unspecified addresses, IPv4, IPv6 and IPv4-mapped', async () => {
    const cases: Array<[string, RegExp]> = [
      ['https://127.0.0.1/', /loopback/],
      ['https://127.1.2.3/', /loopback/],
      ['https://2130706433/', /loopback/], // 127.0.0.1 written as one number
      ['https://0x7f.1/', /loopback/],
      ['https://localhost/', /loopback address \(localhost resolves to/], // by its resolved address
      ['https://api.localhost/', /loopback/],
      ['https://[::1]/', /loopback/],
      ['https://[::ffff:127.0.0.1]/', /loopback/],
      ['https://[::ffff:7f00:1]/', /loopback/],
      ['https://10.1.2.3/', /private/],
      ['https://172.16.0.1/', /private/],
      ['https://192.168.1.1/', /private/],
      ['https://[::ffff:192.168.1.1]/', /private/],
      ['https://[fd00::1]/', /private/],
      ['https://169.254.169.254/latest/meta-data', /link-local/],
      ['https://[fe80::1]/', /link-local/],
      ['https://224.0.0.1/', /multicast/],
      ['https://[ff02::1]/', /multicast/],
      ['https://0.0.0.0/', /unspecified/],
      ['https://[::]/', /unspecified/],
    ];
    for (const [url, reason] of cases) expect(await refused(url), url).toMatch(reason);
  });

  it('the allow-list exempts only the hosts it names', async () => {
    expect(await refused('http://10.0.0.1/hook', ['127.0.0.1'])).toMatch(/https/);
    expect(await refused('https://[::1]/hook', ['127.0.0.1'])).toMatch(/loopback/);
  });
});

describe('retryDelayMs (webhook deliveries and flow steps)', () => {
  it('follows the schedule with at most 10 % jitter, lets Retry-After ask for longer (a day at most), and ends with the schedule', () => {
    const schedule = [5, 60];
    for (let i = 0; i < 50; i++) {
      const first = retryDelayMs(schedule, 1)!;
      expect(first).toBeGreaterThanOrEqual(5_000);
      expect(first).toBeLessThanOrEqual(5_500);
    }
    expect(retryDelayMs(schedule, 2, 600_000)).toBe(600_000);
    expect(retryDelayMs(schedule, 1, 1_000)).toBeGreaterThanOrEqual(5_000);
    expect(retryDelayMs(schedule, 1, 30 * 86_400_000)).toBe(86_400_000);
    expect(retryDelayMs(schedule, 3)).toBeUndefined();
    expect(retryDelayMs(schedule, 0)).toBeUndefined();
  });
});
