import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/**
 * Found syncing two real sites declared in a config (`auth.passwordEnv`): with the target's
 * password wrong, calsync said "check CALSYNC_USER and CALSYNC_PASSWORD (or CALSYNC_TOKEN)",
 * variables that run did not read at all. The message now names where the credentials came from.
 */
describe('regression: a refused password sent the user to CALSYNC_PASSWORD when the config held it', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  let config: string;
  let feed: string;
  beforeAll(async () => {
    site = await testSite();
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-cred-message-'));
    config = path.join(dir, 'calsync.config.json');
    writeFileSync(config, JSON.stringify({ sites: [{ name: 'city', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'CITY_APP_PASSWORD' } }] }));
    feed = path.join(dir, 'talks.ics');
    writeFileSync(feed, 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n');
  });
  afterAll(() => site.close());
  const importInto = (siteArg: string, env: Record<string, string>, extra: string[] = []) =>
    runCli([...extra, 'import', 'ics', feed, '--site', siteArg], { REDIS_URL: '', CALSYNC_USER: '', CALSYNC_PASSWORD: '', CALSYNC_TOKEN: '', ...env });

  it("a config site: the message names the site's user and its password variable", async () => {
    const r = await importInto('city', { CITY_APP_PASSWORD: 'wrong-password-here' }, ['--config', config]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `calsync: ${site.sandbox.url} refused the credentials (incorrect_password): wrong user or application password; check the config's site "city": its auth.user ("${USER}") and the application password in $CITY_APP_PASSWORD`,
    );
  });

  it('a site given by URL: the message names the variables it read, CALSYNC_USER and CALSYNC_PASSWORD', async () => {
    const r = await importInto(site.sandbox.url, { CALSYNC_USER: USER, CALSYNC_PASSWORD: `${PASSWORD}-wrong` });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`calsync: ${site.sandbox.url} refused the credentials (incorrect_password): wrong user or application password; check CALSYNC_USER and CALSYNC_PASSWORD`);
  });
});
