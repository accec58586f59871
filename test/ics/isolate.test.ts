import { describe, expect, it } from 'vitest';
import { IcsError, IcsNotCalendarError } from '../../src/sources/ics/errors.ts';
import { normalizeIcsIsolated } from '../../src/sources/ics/isolate.ts';

const W = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2028-01-01T00:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const opts = { sourceKey: 'i', sourceName: 'feed.ics', window: W };
/** 1.5 M properties in one VEVENT: far more than 64 MB once parsed. */
const BIG = enc(`BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:x\r\nDTSTART:20270101T100000Z\r\n${'X-A:y\r\n'.repeat(1_500_000)}END:VEVENT\r\nEND:VCALENDAR\r\n`);

async function rejection(p: Promise<unknown>): Promise<IcsError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(IcsError);
  return e as IcsError;
}

describe('the isolated ICS parser (worker thread with heap and time limits)', () => {
  it('returns the same result as in-process parsing, from a .ts entry loaded by the worker thread', async () => {
    const r = await normalizeIcsIsolated(enc('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:A\r\nDTSTART:20270105T100000Z\r\nRRULE:FREQ=DAILY;COUNT=3\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n'), opts);
    expect(r.items.map((i) => (i.ok ? i.draft.identity : ''))).toEqual(['a|2027-01-05T10:00:00Z', 'a|2027-01-06T10:00:00Z', 'a|2027-01-07T10:00:00Z']);
  });

  it('a feed over the heap limit fails with ics-memory-limit, and the process goes on', async () => {
    const e = await rejection(normalizeIcsIsolated(BIG, opts, { maxHeapMb: 64 }));
    expect(e.code).toBe('ics-memory-limit');
    expect(e.message).toBe('feed.ics: the feed exceeded 64 MB while parsing and was stopped (raise the ICS parser heap limit if it is legitimate)');
  });

  it('a feed over the time limit fails with ics-time-limit', async () => {
    const e = await rejection(normalizeIcsIsolated(BIG, opts, { timeoutMs: 300 }));
    expect(e.code).toBe('ics-time-limit');
    expect(e.message).toMatch(/parsing took longer than 300 ms/);
  });

  it('typed refusals cross the thread boundary with their class and fields', async () => {
    const e = await rejection(normalizeIcsIsolated(enc('<!doctype html><html><body>login</body></html>'), opts));
    expect(e).toBeInstanceOf(IcsNotCalendarError);
    expect((e as IcsNotCalendarError).looksLike).toBe('html');
  });

  it('an aborted run stops the parser with the abort reason', async () => {
    const ac = new AbortController();
    const p = normalizeIcsIsolated(BIG, opts, {}, ac.signal);
    setTimeout(() => ac.abort(new Error('cancelled by the test')), 50);
    await expect(p).rejects.toThrow('cancelled by the test');
  });
});
