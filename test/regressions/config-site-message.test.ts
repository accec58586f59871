import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/api/preflight.ts';
import { parseConfig } from '../../src/config/load.ts';
import { resolveSite } from '../../src/config/sites.ts';
import { freePort } from '../../src/queue/redis-server.ts';
import { testSite } from '../support/site.ts';

describe("regression: a config site's preflight failures told the operator to check --site / add --namespace, flags a worker run never had", () => {
  it('a config site that nothing answers: the message names the config site and its restRoot', async () => {
    const port = await freePort();
    const restRoot = `http://127.0.0.1:${port}/wp-json`;
    const config = parseConfig({ sites: [{ name: 'city', restRoot }] });
    const err = await preflight(resolveSite('city', config).connection, { write: false }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/nothing listens at .*: check the restRoot of the config's site "city" and that the site is running/);
    expect((err as Error).message).not.toContain('--site');
    // The same site given by URL on the command line still points at --site.
    const byUrl = await preflight(resolveSite(restRoot).connection, { write: false }).catch((e: Error) => e);
    expect((byUrl as Error).message).toMatch(/check --site and/);
  });

  it('a config site with the wrong namespace: the message says which namespace to set on that config site', async () => {
    const env = await testSite();
    try {
      // A namespace the site does not have (a typo, or another plugin's version).
      const config = parseConfig({ sites: [{ name: 'city', restRoot: env.sandbox.url, namespace: 'calendar/events/v9' }] });
      const err = await preflight(resolveSite('city', config).connection, { write: false }).catch((e: Error) => e);
      expect((err as Error).message).toMatch(/its REST index has (\S+): set "namespace": "\1" on the config's site "city"$/);
      const byUrl = await preflight(resolveSite(env.sandbox.url, undefined, { namespace: 'calendar/events/v9' }).connection, { write: false }).catch((e: Error) => e);
      expect((byUrl as Error).message).toMatch(/: add --namespace \S+$/);
    } finally {
      await env.close();
    }
  });
});
