import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { PASSWORD, testSite, USER } from '../support/site.ts';

/**
 * Found exporting a real TEC site (no WPML): `calsync export ics --lang all` wrote six feeds,
 * events.en.ics … events.sv.ics, every one the same English events, labelled "events (fr)" and so
 * on: `all` was every language calsync knows, not the site's.
 */
describe('regression: export ics --lang all wrote a feed for every language calsync knows', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    env = await testSite();
    await env.client.events.create({ title: 'Talk', start_date: '2031-03-10 19:00:00', end_date: '2031-03-10 20:00:00', timezone: 'Europe/Berlin' } as never);
  });
  afterAll(() => env.close());
  const exportAll = (site: string, extra: string[] = [], envVars: Record<string, string> = {}) => {
    const out = mkdtempSync(path.join(tmpdir(), 'calsync-export-all-'));
    const run = runCli([...extra, 'export', 'ics', '--site', site, '--lang', 'all', '--from', '2031-01-01', '--to', '2031-12-31', '--out', out], { REDIS_URL: '', ...envVars });
    return run.then((r) => ({ ...r, files: readdirSync(out).sort() }));
  };

  it('a site given by URL has one language (en): one feed', async () => {
    const r = await exportAll(env.sandbox.url, [], { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD });
    expect(r.code).toBe(0);
    expect(r.files).toEqual(['events.en.ics']);
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^en: 1 events → .*events\.en\.ics$/)]);
  });

  it("a config site's languages are the ones exported", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-export-all-cfg-'));
    const config = path.join(dir, 'calsync.config.json');
    writeFileSync(config, JSON.stringify({ sites: [{ name: 'city', restRoot: env.sandbox.url, languages: ['en', 'fr'], auth: { user: USER, passwordEnv: 'CITY_PASSWORD' } }] }));
    const r = await exportAll('city', ['--config', config], { CITY_PASSWORD: PASSWORD });
    expect(r.code).toBe(0);
    expect(r.files).toEqual(['events.en.ics', 'events.fr.ics']);
  });
});
