import { describe, expect, it } from 'vitest';
import { resolveIcsPayload } from '../../jobs/import-ics.ts';
import { parseConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/config/load.ts';
import { icsParams } from '../../src/runs/options/import-ics.ts';

const site = { name: 'sb', restRoot: 'http://127.0.0.1:9/wp-json' };
const withWindow = (window: unknown) => ({ sites: [site], sources: [{ name: 'archive', kind: 'ics', site: 'sb', url: 'https://example.org/archive.ics', window }] });

describe('regression: a config ICS source could only look ten years back (pastDays ≤ 3660), with no window', () => {
  it('a configured source\'s window reaches the queued run as the CLI\'s --window would', () => {
    const config = parseConfig(withWindow({ from: '2001-03-01', to: '2001-12-31' }));
    const params = icsParams(resolveIcsPayload({ source: 'archive' }, config), config);
    expect(params.window.from.toISOString()).toBe('2001-03-01T00:00:00.000Z');
    expect(params.window.to.toISOString()).toBe('2001-12-31T23:59:59.000Z');
  });

  it('relative ends are resolved when the run starts, as a sync\'s window is', () => {
    const config = parseConfig(withWindow({ from: '2000-01-01', to: '+30d' }));
    const before = Date.now();
    const { window } = icsParams(resolveIcsPayload({ source: 'archive' }, config), config);
    expect(window.from.toISOString()).toBe('2000-01-01T00:00:00.000Z');
    expect(window.to.getTime()).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
  });

  it('a window that ends before it starts, or a date that is no date, is a config error naming the key', () => {
    expect(() => parseConfig(withWindow({ from: '2030-01-01', to: '2020-01-01' }), 'c.json')).toThrow(/sources\[0\]\.window\.to: the window ends before it starts/);
    expect(() => parseConfig(withWindow({ from: 'last year', to: '+1d' }), 'c.json')).toThrow(ConfigError);
    expect(() => parseConfig(withWindow({ from: 'last year', to: '+1d' }), 'c.json')).toThrow(/sources\[0\]\.window\.from: expected a date/);
  });
});
