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
    for (const t of [0, 10, 20, 1500, 1600]) r.request('GET', '/events', false, '/wp-json/x', t);
    expect(r.arrivals()).toEqual([0, 10, 20, 1500, 1600]);
    expect(r.peakRate()).toBe(3);
    expect(r.peakRate(2000)).toBe(5);
    expect(r.snapshot().peakPerSecond).toBe(3);
    r.reset();
    expect(r.arrivals()).toEqual([]);
    expect(r.snapshot().peakPerSecond).toBe(0);
    for (let i = 0; i <= ARRIVALS_CAP; i++) r.request('GET', '/events', false, '/wp-json/x', i);
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
