import express, { Router, type Request, type Response } from 'express';
import type { InboundSms, MessagingEndpoints, UnsubscribeView } from '../../subgraphs/events/public.js';

/**
 * What customers and SMS providers reach without credentials (docs/consent.md):
 *
 * - `GET /u/{token}`: the unsubscribe link of a marketing message; a page that asks to confirm
 *   (mail scanners follow links: a GET changes nothing).
 * - `POST /u/{token}`: the page's button, and a mail client's one-click unsubscribe (RFC 8058: the
 *   body is `List-Unsubscribe=One-Click`); idempotent.
 * - `POST /sms/inbound/{storeId}?secret=...`: an SMS provider's inbound message webhook (Twilio,
 *   Plivo and Vonage form posts, Telnyx and MessageBird JSON); STOP and START replies change SMS consent.
 *
 * An invalid token is a 404 page that says nothing about why; a wrong secret a bare 404.
 */

const PAGE_CSP = ["default-src 'none'", "style-src 'unsafe-inline'", 'img-src data:', "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join('; ');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1f2328}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #1f2328;background:#1f2328;color:#fff;cursor:pointer}
span{color:#59636e}code{background:#f6f8fa;padding:.1rem .3rem;border-radius:4px}</style></head>
<body>${body}</body></html>`;
}

const channelName = (v: UnsubscribeView) => (v.channel === 'email' ? 'emails' : 'text messages');

function confirmPage(view: UnsubscribeView): string {
  const who = view.address ? ` to <code>${escapeHtml(view.address)}</code>` : '';
  if (view.unsubscribed) {
    return page('Unsubscribed', `<h1>You are unsubscribed</h1><p>${escapeHtml(view.storeName)} no longer sends marketing ${channelName(view)}${who}.</p>`);
  }
  return page(
    'Unsubscribe',
    `<h1>Unsubscribe</h1><p>Stop marketing ${channelName(view)} from ${escapeHtml(view.storeName)}${who}?</p>
<form method="post"><input type="hidden" name="confirm" value="yes"><button type="submit">Unsubscribe</button></form>
<p><span>Messages about your orders and returns still reach you.</span></p>`,
  );
}

const invalidPage = () => page('Link not valid', '<h1>This link is not valid</h1><p>Use the unsubscribe link of a recent message.</p>');

function sendPage(res: Response, status: number, html: string): void {
  res.status(status);
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.type('html').send(html);
}

/** The sender and text of an inbound SMS, whichever common provider posted it, or null. */
function inboundMessage(body: unknown): InboundSms | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  // Telnyx: {data: {payload: {from: {phone_number}, text}}}.
  const telnyx = (b.data as { payload?: { from?: { phone_number?: unknown }; text?: unknown } } | undefined)?.payload;
  const from = str(b.From) ?? str(b.from) ?? str(b.msisdn) ?? str(b.originator) ?? str(telnyx?.from?.phone_number);
  const text = str(b.Body) ?? str(b.Text) ?? str(b.text) ?? str(b.body) ?? str(b.payload) ?? str(telnyx?.text);
  return from !== undefined && text !== undefined ? { from, text } : null;
}

const TWIML_EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

export function consentPages(endpoints: MessagingEndpoints): Router {
  const router = Router();
  // Bodies are read leniently: the token (or the store's secret) is the authority, not the body, so a body
  // that cannot be read (a charset, an encoding, a size) counts as empty instead of failing the request.
  const lenient =
    (parse: express.RequestHandler): express.RequestHandler =>
    (req, res, next) =>
      parse(req, res, (err?: unknown) => {
        if (err) req.body = undefined;
        next();
      });
  const form = lenient(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }));
  const json = lenient(express.json({ limit: '64kb' }));

  router.get('/u/:token', async (req: Request, res: Response, next) => {
    try {
      const view = await endpoints.unsubscribePage(String(req.params.token));
      sendPage(res, view ? 200 : 404, view ? confirmPage(view) : invalidPage());
    } catch (err) {
      next(err);
    }
  });

  // The page's button (a form post) or a mail client's one-click POST (`List-Unsubscribe=One-Click`): both unsubscribe.
  router.post('/u/:token', form, async (req: Request, res: Response, next) => {
    try {
      const token = String(req.params.token);
      const oneClick = (req.body as Record<string, unknown> | undefined)?.['List-Unsubscribe'] === 'One-Click';
      const done = await endpoints.unsubscribe(token, oneClick ? 'ONE_CLICK' : 'UNSUBSCRIBE_LINK');
      if (!done) return sendPage(res, 404, invalidPage());
      const view = await endpoints.unsubscribePage(token);
      sendPage(res, 200, confirmPage(view!));
    } catch (err) {
      next(err);
    }
  });

  router.post('/sms/inbound/:storeId', form, json, async (req: Request, res: Response, next) => {
    try {
      const secret = typeof req.query.secret === 'string' ? req.query.secret : '';
      const message = inboundMessage(req.body);
      const { allowed } = await endpoints.inboundSms(String(req.params.storeId), secret, message ?? { from: '', text: '' });
      if (!allowed) return res.status(404).type('text/plain').send('Not found\n');
      // An empty TwiML answer: Twilio sends nothing back (the carrier confirms STOP itself); others ignore it.
      res.status(200).type('text/xml').send(TWIML_EMPTY);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
