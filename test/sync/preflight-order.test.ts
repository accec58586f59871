import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedSite } from '../../src/config/sites.ts';
import { runSiteSync, type SyncParams } from '../../src/runs/sync-site.ts';
import { seedSite } from '../support/seed.ts';
import { testSite } from '../support/site.ts';

// The planner checks both sites side by side (one round trip instead of two before the listing):
// which failure a run reports must not depend on which answer came first.
describe('sync preflight of both sites at once', () => {
  let good: Awaited<ReturnType<typeof testSite>>;
  let notRest: http.Server;
  let bad: ResolvedSite;
  beforeAll(async () => {
    good = await testSite();
    // Answers at once (the sandbox takes longer), with a page that is no REST root.
    notRest = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html>no</html>'));
    await new Promise<void>((r) => notRest.listen(0, '127.0.0.1', r));
    const root = `http://127.0.0.1:${(notRest.address() as AddressInfo).port}/wp-json`;
    bad = { ...good.site, key: 'bad', name: 'bad', connection: { ...good.site.connection, restRoot: root } };
  });
  afterAll(async () => {
    await good.close();
    await new Promise((r) => notRest.close(r));
  });
  const params = (from: ResolvedSite, to: ResolvedSite): SyncParams => ({
    from, to, lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') }, retire: 'trash', onEdit: 'overwrite', dryRun: false,
  });
  const failure = (p: SyncParams) => runSiteSync(p).then(() => undefined, (err: Error & { code?: string }) => ({ code: err.code, message: err.message }));

  it('reports the failing site, the source first when both fail', async () => {
    const root = (s: ResolvedSite) => s.connection.restRoot;
    const target = await failure(params({ ...good.site, key: 'src', name: 'src' }, bad));
    expect(target).toMatchObject({ code: 'preflight-not-a-rest-root' });
    expect(target?.message).toContain(root(bad));
    const source = await failure(params(bad, good.site));
    expect(source?.message).toContain(root(bad));
    const other = { ...bad, key: 'bad2', name: 'bad2', connection: { ...bad.connection, restRoot: `${root(bad)}/other` } };
    const both = await failure(params(bad, other));
    expect(both?.message).toContain(`${root(bad)} `);
    expect(both?.message).not.toContain(root(other));
  });

  // The checks run while the source's listing starts (to save their round trips before the first
  // page): a check that fails must still be the run's error, with nothing written to the target.
  it('a target refusing the password: the preflight error is the run\'s, and nothing reaches the target', async () => {
    const source = await testSite();
    const target = await testSite();
    try {
      await seedSite(source.client, ['en'], 20);
      const wrong = { ...target.site, connection: { ...target.site.connection, auth: { kind: 'basic' as const, user: 'calsync', password: 'not the password' } } };
      const before = target.sandbox.stats().writes;
      const err = await failure(params({ ...source.site, key: 'src', name: 'src' }, wrong));
      expect(err?.code).toMatch(/^preflight-/);
      expect(err?.message).toContain(target.site.connection.restRoot);
      expect(target.sandbox.stats().writes).toBe(before);
      expect(target.sandbox.dump('en').events).toHaveLength(0);
    } finally {
      await source.close();
      await target.close();
    }
  });
});
