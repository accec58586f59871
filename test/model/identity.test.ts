import { describe, expect, it } from 'vitest';
import { slugFor, slugify, sourceKeyFrom } from '../../src/model/identity.ts';
import { fingerprint } from '../../src/model/fingerprint.ts';
import { EventDraft } from '../../src/model/draft.ts';

describe('identity', () => {
  it('derives the same slug from the same identity and a different one otherwise', () => {
    expect(slugFor('feed', 'uid-1|2024-01-01T10:00:00Z')).toBe(slugFor('feed', 'uid-1|2024-01-01T10:00:00Z'));
    expect(slugFor('feed', 'uid-1|2024-01-01T10:00:00Z')).not.toBe(slugFor('feed', 'uid-1|2024-01-02T10:00:00Z'));
    expect(slugFor('feed', 'x')).not.toBe(slugFor('other', 'x'));
    expect(slugFor('Städtische Bühne!', 'x')).toMatch(/^stadtische-buhne-[0-9a-f]{12}$/);
  });
  it('follows WordPress slug rules', () => {
    expect(slugify('  Ça va?  Très__bien ')).toBe('ca-va-tres-bien');
    expect(slugFor('a'.repeat(500), 'x').length).toBeLessThanOrEqual(200);
  });
  it('derives source keys from URLs and file names', () => {
    expect(sourceKeyFrom('https://example.org/feeds/city.ics')).toBe('example-org-feeds-city');
    expect(sourceKeyFrom('webcal://example.org/cal')).toBe('example-org-cal');
    expect(sourceKeyFrom('/tmp/My Events.csv')).toBe('my-events');
  });
});

describe('fingerprint', () => {
  it('ignores key order and undefined values but not content', () => {
    expect(fingerprint({ a: 1, b: [1, 2], c: undefined })).toBe(fingerprint({ b: [1, 2], a: 1 }));
    expect(fingerprint({ a: 1, b: [2, 1] })).not.toBe(fingerprint({ a: 1, b: [1, 2] }));
  });
});

describe('EventDraft', () => {
  const base = {
    identity: 'x', title: 'T', timezone: 'UTC', all_day: false,
    start_date: '2024-01-01 10:00:00', end_date: '2024-01-01 11:00:00', origin: { source: 's' },
  };
  it('accepts a valid draft and fills defaults', () => {
    const d = EventDraft.parse(base);
    expect(d.categories).toEqual([]);
    expect(d.cancelled).toBe(false);
  });
  it('rejects an end before the start, naming the field', () => {
    const r = EventDraft.safeParse({ ...base, end_date: '2024-01-01 09:00:00' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['end_date']);
  });
  it('rejects dates with offsets', () => {
    expect(EventDraft.safeParse({ ...base, start_date: '2024-01-01T10:00:00Z' }).success).toBe(false);
  });
});
