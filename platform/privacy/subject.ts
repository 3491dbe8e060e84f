/**
 * What one erasure knows about the person it erases: the identifiers that find their records and
 * the copies of them (customer ids, emails, phone numbers), and the other personal values read from
 * those records on the way (names, street lines, postal codes). Each part of the service adds what it
 * finds; the later parts scrub copies with all of it. Pure: unit-tested in test/unit/privacy-subject.test.ts.
 */
export interface ErasureSubject {
  customerIds: string[];
  /** Lower-cased: emails compare case-insensitively everywhere in the service. */
  emails: string[];
  phones: string[];
  /** Names, street lines, postal codes: removed where they are a whole value of a copy about the person. */
  details: string[];
}

/** What replaces an identifier inside free text. Whole values of a copy become empty strings, as anonymised records show them. */
export const ERASED_TEXT = '[erased]';

/** The identifiers an erasure or an export is asked for: exactly one. */
export interface CustomerIdentifier {
  customerId?: string;
  email?: string;
  phoneNumber?: string;
}

export function subjectOf(by: CustomerIdentifier): ErasureSubject {
  return {
    customerIds: by.customerId ? [by.customerId] : [],
    emails: by.email ? [by.email.toLowerCase()] : [],
    phones: by.phoneNumber ? [by.phoneNumber] : [],
    details: [],
  };
}

const union = (a: readonly string[], b: readonly (string | null | undefined)[]) => [...new Set([...a, ...b.filter((v): v is string => typeof v === 'string' && v.trim() !== '')])];

/** Adds what another part found. */
export function mergeSubject(subject: ErasureSubject, found: Partial<ErasureSubject>): ErasureSubject {
  return {
    customerIds: union(subject.customerIds, found.customerIds ?? []),
    emails: union(subject.emails, (found.emails ?? []).map((e) => e.toLowerCase())),
    phones: union(subject.phones, found.phones ?? []),
    details: union(subject.details, found.details ?? []),
  };
}

export function sameSubject(a: ErasureSubject, b: ErasureSubject): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * One regular expression for every identifier of the subject, bounded so that `ann@x.com` does not
 * match inside `joann@x.com` nor `+1555123` inside `+15551234`. The same source runs in PostgreSQL
 * (`~*`, which has lookbehind since 9.6) to find the rows that mention the person, and in JavaScript
 * (flag `i`) to scrub them. Null when the subject has no identifier.
 */
export function identifierPattern(subject: ErasureSubject): string | null {
  const parts = [
    ...subject.emails.map((e) => `(?<![A-Za-z0-9._%+-])${escape(e)}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])`),
    ...subject.phones.map((p) => `(?<![0-9+])${escape(p)}(?![0-9])`),
    ...subject.customerIds.map((id) => `(?<![A-Za-z0-9_])${escape(id)}(?![A-Za-z0-9_])`),
  ];
  return parts.length ? parts.join('|') : null;
}

/** Free text with every identifier of the subject replaced by ERASED_TEXT. */
export function scrubText(text: string, subject: ErasureSubject): string {
  const pattern = identifierPattern(subject);
  return pattern ? text.replace(new RegExp(pattern, 'gi'), ERASED_TEXT) : text;
}

/**
 * A JSON copy (a payload, a job's data) with the person taken out: a string that is one of the
 * subject's identifiers or details becomes `""` (as an anonymised record shows it), and identifiers
 * inside longer strings become ERASED_TEXT. Keys are left alone; the shape stays what its schema says.
 */
export function scrubJson<T>(value: T, subject: ErasureSubject): T {
  const whole = new Set([...subject.emails, ...subject.phones, ...subject.customerIds, ...subject.details].map((v) => v.toLowerCase()));
  const pattern = identifierPattern(subject);
  const inText = pattern ? new RegExp(pattern, 'gi') : null;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (whole.has(v.trim().toLowerCase())) return '';
      return inText ? v.replace(inText, ERASED_TEXT) : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
