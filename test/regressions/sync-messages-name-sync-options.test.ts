import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { writeConfig } from '../support/worker-process.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/**
 * Found syncing two real TEC sites from the command line:
 * - a source given by URL without its namespace was answered "add --namespace tribe/events/v1",
 *   an option `calsync sync` does not have (it has --from-namespace and --to-namespace); a target
 *   that was down, "check --site" (sync has --from and --to);
 * - `--from a --to a` (or a config site and its own REST root) was accepted and would have copied
 *   every event of the site beside itself as `a-<slug>`.
 */
describe('regression: sync failure messages named options sync does not have, and a sync into its own site ran', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  let closedPort: number;
  const env = { REDIS_URL: '', CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD, CALSYNC_TOKEN: '' };
  beforeAll(async () => {
    site = await testSite();
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closedPort = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
  });
  afterAll(() => site.close());

  it('a source by URL with the wrong namespace: the fix names --from-namespace', async () => {
    const r = await runCli(['sync', '--from', site.sandbox.url, '--from-namespace', 'tribe/events/v9', '--to', 'http://127.0.0.1:1/wp-json', '--dry-run'], env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^calsync: \S+ has no tribe\/events\/v9 namespace; its REST index has (\S+): add --from-namespace \1$/);
  });

  it('a target by URL that is down: the fix names --to', async () => {
    const r = await runCli(['sync', '--from', site.sandbox.url, '--to', `http://127.0.0.1:${closedPort}/wp-json`], env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`calsync: nothing listens at http://127.0.0.1:${closedPort} (connection refused): check --to and that the site is running`);
  });

  it('the same site as source and target is refused before any request', async () => {
    const before = site.sandbox.stats().total;
    const r = await runCli(['sync', '--from', site.sandbox.url, '--to', `${site.sandbox.url}/`], env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^calsync: --from \S+ and --to \S+ are the same site \(.+\): a sync copies one site into another; give another --to$/);
    expect(site.sandbox.stats().total).toBe(before);
  });
  it('a configured sync from a site into itself fails `config check` (and any run of the config), naming the sync', async () => {
    const sites = [{ name: 'a', restRoot: `${site.sandbox.url}/` }, { name: 'b', restRoot: site.sandbox.url, namespace: 'tribe/events/v1' }];
    const syncs = [{ name: 'by-name', from: 'a', to: 'a' }, { name: 'by-url', from: 'a', to: site.sandbox.url }, { name: 'other-namespace', from: 'a', to: 'b' }];
    const r = await runCli(['--config', writeConfig({ sites, syncs }), 'config', 'check'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('syncs[0].to: "a" is the same site as from "a": a sync copies one site into another');
    expect(r.stderr).toContain(`syncs[1].to: "${site.sandbox.url}" is the same site as from "a"`);
    // The same REST root under another namespace is another site.
    expect(r.stderr).not.toContain('syncs[2]');
  });
  it('regression: `config check` passed a sync whose target URL differed from its source only in the host\'s case, which every run refused', async () => {
    const root = new URL(site.sandbox.url);
    const sites = [{ name: 'a', restRoot: `http://localhost:${root.port}${root.pathname}` }];
    const syncs = [{ name: 'by-url', from: 'a', to: `http://LOCALHOST:${root.port}${root.pathname}/` }];
    const r = await runCli(['--config', writeConfig({ sites, syncs }), 'config', 'check'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`syncs[0].to: "http://LOCALHOST:${root.port}${root.pathname}/" is the same site as from "a"`);
  });
});
