import type { FieldError } from '../errors.js';
import { textProblem, utf8Length } from './rules.js';

/**
 * The input-hygiene rules every entry point applies to a parsed JSON value
 * before any schema, resolver or recursive code sees it (REST bodies, GraphQL
 * variables, the compatibility API). They refuse what the database would
 * refuse or silently change:
 * - text with U+0000 or lone surrogates (PostgreSQL cannot store the first;
 *   the second would be replaced by U+FFFD and merge distinct values);
 * - property names `__proto__` (assigning one to a plain object changes its
 *   prototype instead of storing it, so the value would be dropped);
 * - numbers JSON parsing turned into Infinity (`1e400`), which would be
 *   re-serialised as `null`;
 * - nesting deeper than MAX_JSON_DEPTH, which recursive code (GraphQL value
 *   coercion, jsonb) would overflow on.
 * The walk is iterative, so the check itself cannot overflow the stack.
 */
export const MAX_JSON_DEPTH = 64;

export interface HygieneOptions {
  /** JSON pointer the value sits at (`/events/3`, `variables/input`). */
  pointer?: string;
  maxDepth?: number;
  /** Also refuse any string (or property name) longer than this many UTF-8 bytes. */
  maxStringBytes?: number;
  /** Stop after this many findings; a hostile body could otherwise produce millions. */
  maxErrors?: number;
}

const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__']);

/** JSON pointer segment escaping (RFC 6901). */
export function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function inspectJson(value: unknown, options: HygieneOptions = {}): FieldError[] {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const maxErrors = options.maxErrors ?? 50;
  const errors: FieldError[] = [];
  const stack: [unknown, string, number][] = [[value, options.pointer ?? '', 0]];
  const checkString = (text: string, pointer: string, what: string) => {
    const problem = textProblem(text);
    if (problem) errors.push({ pointer, detail: `${what}${problem}` });
    else if (options.maxStringBytes !== undefined && utf8Length(text, options.maxStringBytes) > options.maxStringBytes) {
      errors.push({ pointer, detail: `${what}must be at most ${Math.round(options.maxStringBytes / 1024)} KB` });
    }
  };
  while (stack.length && errors.length < maxErrors) {
    const [node, pointer, depth] = stack.pop()!;
    if (typeof node === 'string') {
      checkString(node, pointer, '');
    } else if (typeof node === 'number') {
      if (!Number.isFinite(node)) errors.push({ pointer, detail: 'must be a finite number' });
    } else if (node !== null && typeof node === 'object') {
      if (depth >= maxDepth) {
        errors.push({ pointer, detail: `nests deeper than ${maxDepth} levels` });
        continue;
      }
      if (Array.isArray(node)) {
        for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${pointer}/${i}`, depth + 1]);
      } else {
        // Entries, not node[key]: an own "__proto__" property is read as itself, not as the prototype.
        const entries = Object.entries(node);
        for (let i = entries.length - 1; i >= 0; i--) {
          const [key, value] = entries[i]!;
          const child = `${pointer}/${pointerSegment(key)}`;
          if (RESERVED_KEYS.has(key)) errors.push({ pointer: child, detail: `"${key}" is a reserved property name` });
          else checkString(key, child, 'property name ');
          stack.push([value, child, depth + 1]);
        }
      }
    }
  }
  return errors;
}
