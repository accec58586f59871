import { describe, expect, it } from 'vitest';
import { IcsError, IcsNotCalendarError } from '../../src/sources/ics/errors.ts';
import { idleIcsParserThread, normalizeIcsIsolated, prewarmIcsParser } from '../../src/sources/ics/isolate.ts';

const W = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2028-01-01T00:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const opts = { sourceKey: 'i', sourceName: 'feed.ics', window: W };
/**
 * 1.5 M properties in one VALARM: far more than 64 MB once parsed. (A VEVENT's own properties are
 * read as they are parsed and unknown ones dropped, so the same lines directly in the VEVENT stay small;
 * a VALARM's are collected into its component until the VEVENT ends.)
 */
const BIG = enc(`BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:x\r\nDTSTART:20270101T100000Z\r\nBEGIN:VALARM\r\n${'X-A:y\r\n'.repeat(1_500_000)}END:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`);

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

  it('the same 1.5 M properties directly in the VEVENT stay under that limit: they are read as parsed, never collected', async () => {
    const flat = enc(`BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:x\r\nDTSTART:20270101T100000Z\r\n${'X-A:y\r\n'.repeat(1_500_000)}END:VEVENT\r\nEND:VCALENDAR\r\n`);
    const r = await normalizeIcsIsolated(flat, opts, { maxHeapMb: 64 });
    expect(r.items.map((i) => (i.ok ? i.draft.identity : i.failure.reason))).toEqual(['x']);
  });

  it('a feed over the time limit fails with ics-time-limit', async () => {
    // 20 ms: a fast machine parsed BIG's 10.5 MB within 300 ms, and the feed was accepted.
    const e = await rejection(normalizeIcsIsolated(BIG, opts, { timeoutMs: 20 }));
    expect(e.code).toBe('ics-time-limit');
    expect(e.message).toMatch(/parsing took longer than 20 ms/);
  });

  it('typed refusals cross the thread boundary with their class and fields', async () => {
    const e = await rejection(normalizeIcsIsolated(enc('<!doctype html><html><body>login</body></html>'), opts));
    expect(e).toBeInstanceOf(IcsNotCalendarError);
    expect((e as IcsNotCalendarError).looksLike).toBe('html');
  });

  it('an aborted run stops the parser with the abort reason', async () => {
    const ac = new AbortController();
    const p = normalizeIcsIsolated(BIG, opts, {}, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('cancelled by the test')), 50);
    await expect(p).rejects.toThrow('cancelled by the test');
  });

  describe('parser thread reuse (starting a thread costs more than parsing a small feed)', () => {
    const SMALL = enc('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:s\r\nSUMMARY:S\r\nDTSTART:20270105T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n');

    it('a thread that answered a small feed parses the next one too, and a typed refusal keeps it', async () => {
      await normalizeIcsIsolated(SMALL, opts);
      const first = idleIcsParserThread();
      expect(first).toBeGreaterThan(0);
      await rejection(normalizeIcsIsolated(enc('<html><body>x</body></html>'), opts));
      expect(idleIcsParserThread()).toBe(first);
      const r = await normalizeIcsIsolated(SMALL, opts);
      expect(r.items.map((i) => (i.ok ? i.draft.identity : ''))).toEqual(['s']);
      expect(idleIcsParserThread()).toBe(first);
    });

    it('a thread stopped by the heap or time limit is never reused: the next parse gets a fresh thread and succeeds', async () => {
      await normalizeIcsIsolated(SMALL, opts, { maxHeapMb: 64 });
      const before = idleIcsParserThread();
      expect((await rejection(normalizeIcsIsolated(BIG, opts, { maxHeapMb: 64 }))).code).toBe('ics-memory-limit');
      expect(idleIcsParserThread()).toBeUndefined();
      expect((await rejection(normalizeIcsIsolated(BIG, opts, { timeoutMs: 300 }))).code).toBe('ics-time-limit');
      expect(idleIcsParserThread()).toBeUndefined();
      const r = await normalizeIcsIsolated(SMALL, opts, { maxHeapMb: 64 });
      expect(r.items).toHaveLength(1);
      expect(idleIcsParserThread()).not.toBe(before);
    });

    it('a big file\'s thread ends after answering (its heap still holds that file\'s garbage)', async () => {
      const events = Array.from({ length: 30_000 }, (_, i) => `BEGIN:VEVENT\r\nUID:b${i}\r\nSUMMARY:${'B'.repeat(100)}\r\nDTSTART:20270105T100000Z\r\nEND:VEVENT\r\n`).join('');
      const big = enc(`BEGIN:VCALENDAR\r\n${events}END:VCALENDAR\r\n`);
      expect(big.byteLength).toBeGreaterThan(4 * 2 ** 20);
      await normalizeIcsIsolated(SMALL, opts);
      expect(idleIcsParserThread()).toBeGreaterThan(0);
      const r = await normalizeIcsIsolated(big, opts);
      expect(r.summary.vevents).toBe(30_000);
      expect(idleIcsParserThread()).toBeUndefined();
    });

    it('a prewarmed thread is the one the next parse uses; concurrent parses each get their own', async () => {
      prewarmIcsParser();
      const warm = idleIcsParserThread();
      expect(warm).toBeGreaterThan(0);
      const [a, b] = await Promise.all([normalizeIcsIsolated(SMALL, opts), normalizeIcsIsolated(SMALL, opts)]);
      expect(a.items).toHaveLength(1);
      expect(b.items).toHaveLength(1);
      expect(idleIcsParserThread()).toBeGreaterThan(0);
    });
  });
});
