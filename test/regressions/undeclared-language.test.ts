import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { SiteLanguageError } from '../../src/config/sites.ts';
import { exportParams } from '../../src/runs/options/export-ics.ts';
import { syncParams } from '../../src/runs/options/sync-site.ts';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/**
 * Found trying calsync against a real TEC 6.17.2 site as a user would. The site has no multilingual
 * plugin, so it ignores `ml_language`: an import of the French copy of a feed with `--lang fr`
 * into a config site (whose `languages` default to `["en"]`) wrote every French title over the
 * English events (18 updated), and `export --lang en,fr` wrote the English events into the French
 * feed. A language the config does not declare for its site is now refused before anything is
 * read; a site given by URL declares none and takes any (the sandbox serves every language).
 */
describe('regression: a run in a language its config site does not declare overwrote the site\'s events', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  let dir: string;
  let config: string;
  beforeAll(async () => {
    site = await testSite();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-undeclared-lang-'));
    config = path.join(dir, 'calsync.config.json');
    writeFileSync(config, JSON.stringify({ sites: [{ name: 'city', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'CITY_PW' } }] }));
    writeFileSync(path.join(dir, 'talks.ics'), 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@test\r\nDTSTART:20270301T100000Z\r\nSUMMARY:Concert\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n');
  });
  afterAll(() => site.close());
  const MESSAGE = 'site "city" serves en (its config\'s "languages"), not fr: a site without a multilingual plugin ignores ml_language, so a run in fr would read and write its en events as fr ones. Run with --lang en, or add "fr" to the site\'s "languages" once it serves fr';

  it('an import with --lang fr into the config site exits 1 with one message, before any request', async () => {
    site.sandbox.resetStats();
    const r = await runCli(['--config', config, 'import', 'ics', path.join(dir, 'talks.ics'), '--site', 'city', '--lang', 'fr', '--window', '2027-01-01..2027-12-31'], { REDIS_URL: '', CITY_PW: PASSWORD });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`calsync: ${MESSAGE}`);
    expect(site.sandbox.stats().total).toBe(0);
  });

  it('the same import with the declared language goes through; by URL any language does', async () => {
    const redis = { REDIS_URL: redisUrl() };
    const en = await runCli(['--config', config, '--prefix', testPrefix(), 'import', 'ics', path.join(dir, 'talks.ics'), '--site', 'city', '--lang', 'en', '--window', '2027-01-01..2027-12-31'], { ...redis, CITY_PW: PASSWORD });
    expect(en.code, en.stderr).toBe(0);
    const fr = await runCli(['--prefix', testPrefix(), 'import', 'ics', path.join(dir, 'talks.ics'), '--site', site.sandbox.url, '--lang', 'fr', '--window', '2027-01-01..2027-12-31'], { ...redis, CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD });
    expect(fr.code, fr.stderr).toBe(0);
  });

  it('an export and a sync naming an undeclared language are refused the same way', () => {
    process.env.CITY_PW = PASSWORD;
    const cfg = parseConfig({ sites: [
      { name: 'city', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'CITY_PW' } },
      { name: 'town', restRoot: 'http://127.0.0.1:9/wp-json', auth: { user: USER, passwordEnv: 'CITY_PW' }, languages: ['en', 'fr'] },
    ] });
    expect(() => exportParams({ name: 'events', site: 'city', languages: ['en', 'fr'] } as never, cfg)).toThrow(SiteLanguageError);
    expect(() => syncParams({ from: 'town', to: 'city', langs: ['fr'], window: '2027-01-01..2027-12-31' } as never, cfg)).toThrow(SiteLanguageError);
    // `all`: the languages both declare.
    expect(syncParams({ from: 'town', to: 'city', langs: 'all', window: '2027-01-01..2027-12-31' } as never, cfg).map((p) => p.lang)).toEqual(['en']);
  });
});
