import express, { type Request, type RequestHandler, type Response } from 'express';
import { AppError, invalid } from '../../platform/errors.js';
import { inspectJson } from '../../platform/validation/index.js';

/** One raw-body reader per limit, built once (routes share a handful of limits). */
const readers = new Map<number, RequestHandler>();
function reader(limit: number): RequestHandler {
  let read = readers.get(limit);
  if (!read) readers.set(limit, (read = express.raw({ limit, type: () => true })));
  return read;
}

/** Refuses bytes that are not UTF-8 rather than replacing them with U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const JSON_TYPE = /^application\/([\w.+-]+\+)?json$/i;
const UTF8_NAME = /^"?utf-?8"?$/i;

/**
 * Why a request's `Content-Type` cannot be read as a JSON body, or undefined
 * when it can: a JSON media type (`application/json` or a `+json` type), and
 * UTF-8 when a charset is named (RFC 8259 section 8.1), since the body is
 * decoded as UTF-8 whatever it says. Every JSON entry point answers 415 with it.
 */
function jsonMediaTypeProblem(contentType: string | undefined): string | undefined {
  const [type = '', ...parameters] = (contentType ?? '').split(';');
  if (!JSON_TYPE.test(type.trim())) return 'Send the body as application/json.';
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=', 2);
    if (name.trim().toLowerCase() === 'charset' && !UTF8_NAME.test(value.trim())) return 'Send the body as UTF-8 JSON.';
  }
  return undefined;
}

/**
 * The body of a JSON route, in the contract's order: content type (415),
 * size (413), JSON (400 `invalid-json`), then the input-hygiene rules every
 * entry point applies (400 with pointers). An empty body or `null` is not a
 * body. Parsing is ours (not body-parser's), so neither is silently read as `{}`.
 */
export async function readJsonBody(req: Request, res: Response, limit: number): Promise<unknown> {
  const mediaTypeProblem = jsonMediaTypeProblem(req.headers['content-type']);
  if (mediaTypeProblem) throw new AppError('unsupported_media_type', 'unsupported-media-type', mediaTypeProblem);
  const raw = await new Promise<Buffer>((resolve, reject) => {
    reader(limit)(req, res, (err?: unknown) => {
      if (!err) return resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      const e = err as { type?: string };
      if (e.type === 'entity.too.large') return reject(new AppError('payload_too_large', 'payload-too-large', `The body is larger than ${limit} bytes.`));
      if (e.type === 'encoding.unsupported') {
        return reject(new AppError('unsupported_media_type', 'unsupported-media-type', 'The Content-Encoding is not supported: send the body uncompressed, or as gzip, deflate or br.'));
      }
      reject(new AppError('invalid_data', 'invalid-json', 'The body could not be read.'));
    });
  });
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new AppError('invalid_data', 'invalid-json', 'The body is not valid UTF-8.');
  }
  if (!text.trim()) throw new AppError('invalid_data', 'invalid-json', 'The body is empty; send a JSON object.');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('invalid_data', 'invalid-json', 'The body is not valid JSON.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('validation-failed', 'The body must be a JSON object.', [{ pointer: '', detail: 'must be a JSON object' }]);
  const errors = inspectJson(body);
  if (errors.length) throw invalid('validation-failed', 'The body holds values that cannot be stored.', errors);
  return body;
}
