import { laravelInvalid } from './params.js';

export type LinkDirection = 'next' | 'previous';

/**
 * The `cursor` of Loop's page links: the service's own signed cursor and the
 * way to page from it (Laravel's cursors carry the direction the same way).
 * Clients follow the links and never read it.
 */
export function encodeLinkCursor(direction: LinkDirection, cursor: string): string {
  return `${direction === 'next' ? 'n' : 'p'}.${cursor}`;
}

export function decodeLinkCursor(value: string): { direction: LinkDirection; cursor: string } {
  const match = /^([np])\.(.+)$/.exec(value);
  if (!match) throw laravelInvalid('cursor', 'The cursor is invalid.');
  return { direction: match[1] === 'n' ? 'next' : 'previous', cursor: match[2]! };
}
