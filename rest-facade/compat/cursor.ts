import { laravelInvalid, type WindowBounds } from './params.js';

export type LinkDirection = 'next' | 'previous';

/**
 * The `cursor` of Loop's page links: a position in the list (the service's
 * signed cursor), the way to page from it, and the window the first page
 * resolved. Loop's cursor is a position: a client that re-sends it with its
 * own parameters and no `from`/`to` continues in that window, whatever the
 * clock says by then (decisions section 17).
 */
export interface LinkCursor {
  direction: LinkDirection;
  window: WindowBounds;
  position: string;
}

export function encodeLinkCursor(cursor: LinkCursor): string {
  // A bound the window does not have is left out (JSON drops undefined).
  return Buffer.from(JSON.stringify({ d: cursor.direction === 'next' ? 'n' : 'p', f: cursor.window.from, t: cursor.window.to, p: cursor.position })).toString('base64url');
}

const optionalText = (value: unknown): value is string | undefined => value === undefined || typeof value === 'string';

export function decodeLinkCursor(value: string): LinkCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const c = parsed as { d?: unknown; f?: unknown; t?: unknown; p?: unknown } | null | undefined;
  if (!c || typeof c !== 'object' || (c.d !== 'n' && c.d !== 'p') || typeof c.p !== 'string' || !c.p || !optionalText(c.f) || !optionalText(c.t)) {
    throw laravelInvalid('cursor', 'The cursor is invalid.');
  }
  return { direction: c.d === 'n' ? 'next' : 'previous', window: { from: c.f, to: c.t }, position: c.p };
}
