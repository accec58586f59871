import { describe, expect, it } from 'vitest';
import { siteHostOf } from '../../src/runs/export-ics.ts';

/**
 * Found trying calsync's export against two real TEC sites on one host (ports 8401 and 8402): both
 * feeds gave their events UIDs `<post id>@127.0.0.1`, so event 11 of one site and event 11 of the
 * other had the same UID, and a calendar subscribed to both merges them. The same happens to a
 * multisite network's sub-directory sites (`example.org/a/wp-json`, `example.org/b/wp-json`). The
 * UID's host part now carries the REST root's port and path; a site at the root of its host on the
 * default port keeps the UIDs it had.
 */
describe('regression: two sites on one host exported the same UIDs', () => {
  const host = (restRoot: string, siteHost?: string) => siteHostOf({ connection: { restRoot }, siteKey: 'key', ...(siteHost ? { siteHost } : {}) });

  it('another port or another sub-directory is another UID host; the root site on the default port is unchanged', () => {
    expect(host('http://127.0.0.1:8401/wp-json')).toBe('127.0.0.1:8401');
    expect(host('http://127.0.0.1:8402/wp-json/')).toBe('127.0.0.1:8402');
    expect(host('https://example.org/a/wp-json')).toBe('example.org/a');
    expect(host('https://example.org/b/wp-json')).toBe('example.org/b');
    expect(host('https://events.example.org/wp-json')).toBe('events.example.org');
    expect(host('https://events.example.org:443/wp-json')).toBe('events.example.org');
    expect(host('https://example.org/?rest_route=/')).toBe('example.org');
    // Configured: kept as given.
    expect(host('http://127.0.0.1:8401/wp-json', 'events.example.org')).toBe('events.example.org');
  });
});
