import { describe, expect, it } from 'vitest';
import { ERASED_TEXT, identifierPattern, mergeSubject, scrubJson, scrubText, subjectOf } from '../../platform/privacy/subject.js';

describe('erasure subject (platform/privacy/subject.ts)', () => {
  const ann = mergeSubject(subjectOf({ email: 'Ann@Example.com' }), { phones: ['+15551234'], customerIds: ['cus_A1'], details: ['Ann', '7 Privacy Lane', ''] });

  it('keeps emails lower-cased and drops empty or repeated values', () => {
    expect(ann).toEqual({ customerIds: ['cus_A1'], emails: ['ann@example.com'], phones: ['+15551234'], details: ['Ann', '7 Privacy Lane'] });
    expect(mergeSubject(ann, { emails: ['ANN@example.com'], phones: [null as unknown as string] })).toEqual(ann);
  });

  it('finds the identifiers as whole values only, case-insensitively for emails', () => {
    const pattern = new RegExp(identifierPattern(ann)!, 'i');
    for (const text of ['write to ANN@example.com.', '"ann@example.com"', 'call +15551234', '+15551234', 'cus_A1', 'id=cus_A1;']) expect(text).toMatch(pattern);
    for (const text of ['joann@example.com', 'ann@example.community', 'ann@example.com.au', '+155512345', '1+15551234', 'cus_A12', 'xcus_A1']) expect(text).not.toMatch(pattern);
    expect(identifierPattern(subjectOf({}))).toBeNull();
  });

  it('scrubs free text and JSON copies, leaving their shape', () => {
    expect(scrubText('Ann (ann@example.com, +15551234) called', ann)).toBe(`Ann (${ERASED_TEXT}, ${ERASED_TEXT}) called`);
    const copy = { customer: { email: 'ANN@EXAMPLE.COM', name: { given: 'Ann' }, id: 'cus_A1' }, note: 'reach ann@example.com', lines: ['7 Privacy Lane', 'Lamp'], n: 2 };
    expect(scrubJson(copy, ann)).toEqual({ customer: { email: '', name: { given: '' }, id: '' }, note: `reach ${ERASED_TEXT}`, lines: ['', 'Lamp'], n: 2 });
    expect(scrubJson(null, ann)).toBeNull();
  });
});
