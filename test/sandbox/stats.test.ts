import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ARRIVALS_CAP, StatsRecorder, peakInWindow } from '../../src/sandbox/stats.ts';
import { openSite } from './helpers.ts';

describe('request arrival rate', () => {
  it('finds the busiest window over known arrivals', () => {
    expect(peakInWindow([], 1000)).toBe(0);
    expect(peakInWindow([5], 1000)).toBe(1);
    // A burst of 4 at 900..960 and 3 more up to 1899: the window starting at 900 holds 900..1899 = 7.
    const times = [0, 100, 900, 920, 940, 960, 1500, 1800, 1899, 1900, 3000];
    expect(peakInWindow(times, 1000)).toBe(7);
    // Half-open: 1900 - 900 is exactly one window, so 1900 falls outside the window opened at 900.
    expect(peakInWindow([900, 1900], 1000)).toBe(1);
    expect(peakInWindow([900, 1899.9], 1000)).toBe(2);
    expect(peakInWindow(times, 100)).toBe(4);
    expect(peakInWindow(times, 10_000)).toBe(times.length);
  });

  it('records arrivals per counted request, forgets them on reset and keeps at most the cap', () => {
    const r = new StatsRecorder();
    for (const t of [0, 10, 20, 1500, 1600]) r.request('GET', '/events', false, t);
    expect(r.arrivals()).toEqual([0, 10, 20, 1500, 1600]);
    expect(r.peakRate()).toBe(3);
    expect(r.peakRate(2000)).toBe(5);
    expect(r.snapshot().peakPerSecond).toBe(3);
    r.reset();
    expect(r.arrivals()).toEqual([]);
    expect(r.snapshot().peakPerSecond).toBe(0);
    for (let i = 0; i <= ARRIVALS_CAP; i++) r.request('GET', '/events', false, i);
    const kept = r.arrivals();
    expect(kept.length).toBeLessThanOrEqual(ARRIVALS_CAP);
    expect(kept.at(-1)).toBe(ARRIVALS_CAP); // the newest are the ones kept
    expect(r.snapshot().total).toBe(ARRIVALS_CAP + 1);
  });

  it('measures the rate of real requests, also at GET /__sandbox/stats', async () => {
    const s = await openSite();
    try {
      await Promise.all(Array.from({ length: 6 }, () => s.call('GET', '/events')));
      await s.call('GET', '/venues');
      expect(s.sb.arrivals()).toHaveLength(7);
      expect(s.sb.peakRate(1000)).toBe(7);
      // Side endpoints are not requests to the site.
      const stats = (await (await request(`${s.sb.origin}/__sandbox/stats`)).body.json()) as { peakPerSecond: number };
      expect(stats.peakPerSecond).toBe(7);
      s.sb.resetStats();
      expect(s.sb.peakRate()).toBe(0);
    } finally {
      await s.sb.close();
    }
  });
});

/**
 * The fault storm failed on a loaded machine with "3 Retry-After violations": one create throttled
 * on `POST /events` made every other create to that path, already sent but slow to arrive, count
 * as an early repeat. A repeat is now the same request: method, path, query and body.
 */
describe('regression: concurrent creates to one path counted as ignoring Retry-After', () => {
  const create = (slug: string) => `POST /wp-json/x/events ${slug}`;

  it('another request to the throttled path is not a repeat; the same request early is', () => {
    const r = new StatsRecorder();
    r.throttled(create('a'), 1000, 0);
    r.arrived(create('b'), 200); // another event's create, however late it arrives
    expect(r.snapshot().retryAfterViolations).toBe(0);
    r.arrived(create('a'), 20); // the same create, on its way before the 429 could be read
    expect(r.snapshot().retryAfterViolations).toBe(0);
    r.arrived(create('a'), 300); // the same create resent long before Retry-After
    expect(r.snapshot().retryAfterViolations).toBe(1);
    r.arrived(create('a'), 990); // within the slack of Retry-After: on time, and forgotten after
    r.arrived(create('a'), 995);
    expect(r.snapshot().retryAfterViolations).toBe(1);
  });

  it('over HTTP: two bodies to POST /events are two requests', async () => {
    const event = (title: string) => ({ body: { title, start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' } });
    const s = await openSite({ throttleRate: 1, retryAfterSeconds: 30 });
    try {
      expect((await s.call('POST', '/events', event('A'))).status).toBe(429);
      await new Promise((r) => setTimeout(r, 120));
      await s.call('POST', '/events', event('B'));
      expect(s.sb.stats().retryAfterViolations).toBe(0);
      await s.call('POST', '/events', event('A'));
      expect(s.sb.stats().retryAfterViolations).toBe(1);
    } finally {
      await s.sb.close();
    }
  });
});
