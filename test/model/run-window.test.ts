import { describe, expect, it } from 'vitest';
import { listingRule, recordTimes, windowCovers, type WindowRule } from '../../src/model/run-window.ts';

const window = (rule: WindowRule) => ({ from: new Date('2027-03-10T00:00:00Z'), to: new Date('2027-03-31T23:59:59Z'), rule });
/** A record as the site returns it: local dates in the event's zone and the same instants in UTC. */
const rec = (local: [string, string], utc: [string, string]) => recordTimes({ start_date: local[0], end_date: local[1], utc_start_date: utc[0], utc_end_date: utc[1] });

describe('run windows', () => {
  const tokyoFirstDay = rec(['2027-03-10 00:00:00', '2027-03-10 23:59:59'], ['2027-03-09 15:00:00', '2027-03-10 14:59:59']);
  const tokyoDayBefore = rec(['2027-03-09 00:00:00', '2027-03-09 23:59:59'], ['2027-03-08 15:00:00', '2027-03-09 14:59:59']);
  const newYorkEveningBefore = rec(['2027-03-09 20:00:00', '2027-03-09 22:00:00'], ['2027-03-10 01:00:00', '2027-03-10 03:00:00']);
  const newYorkLastEvening = rec(['2027-03-31 22:00:00', '2027-03-31 23:00:00'], ['2027-04-01 02:00:00', '2027-04-01 03:00:00']);

  it('local days: each event by its own wall-clock dates', () => {
    const w = window('local-days');
    expect([tokyoFirstDay, tokyoDayBefore, newYorkEveningBefore, newYorkLastEvening].map((t) => windowCovers(w, t))).toEqual([true, false, false, true]);
  });

  it('UTC days: each event by its UTC dates', () => {
    const w = window('utc-days');
    expect([tokyoFirstDay, tokyoDayBefore, newYorkEveningBefore, newYorkLastEvening].map((t) => windowCovers(w, t))).toEqual([false, false, true, false]);
  });

  it('overlap: any part inside [from, to), as the ICS expansion keeps occurrences', () => {
    const w = window('overlap');
    expect([tokyoFirstDay, tokyoDayBefore, newYorkEveningBefore, newYorkLastEvening].map((t) => windowCovers(w, t))).toEqual([true, false, true, false]);
    // Ends exactly at the window's start: outside; zero length at the start: inside.
    expect(windowCovers(w, { start: '2027-03-09T23:00:00Z', end: '2027-03-10T00:00:00Z' })).toBe(false);
    expect(windowCovers(w, { start: '2027-03-10T00:00:00Z', end: '2027-03-10T00:00:00Z' })).toBe(true);
  });

  it('ledger entries without end or local dates count by their UTC start inside [from, to], as before', () => {
    for (const rule of ['local-days', 'utc-days', 'overlap'] as const) {
      expect(windowCovers(window(rule), { start: '2027-03-09T15:00:00Z' })).toBe(false);
      expect(windowCovers(window(rule), { start: '2027-03-10T01:00:00Z' })).toBe(true);
      expect(windowCovers(window(rule), {})).toBe(true);
    }
  });

  it('the listing rule follows the zone the site publishes', () => {
    expect(listingRule({ timezoneString: 'UTC', gmtOffset: 0 })).toBe('utc-days');
    expect(listingRule({ timezoneString: '', gmtOffset: 0 })).toBe('utc-days');
    expect(listingRule({})).toBe('utc-days');
    expect(listingRule({ timezoneString: 'Europe/Berlin', gmtOffset: 1 })).toBe('local-days');
    expect(listingRule({ timezoneString: '', gmtOffset: 9 })).toBe('local-days');
  });
});
