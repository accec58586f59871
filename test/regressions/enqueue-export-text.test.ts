import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, writeConfig } from '../support/worker-process.ts';

/**
 * Found following a configured export on the queue: `calsync enqueue export-ics --name … --wait`
 * printed the job's raw result object (`{"name":"afeed","files":[{…,"etag":…}]}`) where
 * `calsync export ics` prints one line per feed, and `--json` is the flag that asks for JSON.
 */
describe('regression: enqueue export-ics --wait printed raw JSON without --json', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    site = await testSite();
    await site.client.events.create({ title: 'Talk', start_date: '2031-03-10 19:00:00', end_date: '2031-03-10 20:00:00', timezone: 'Europe/Berlin' } as never);
  });
  afterAll(() => site.close());

  it('prints the feed files as `calsync export ics` does; --json still prints the result as JSON', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'calsync-enqueue-export-'));
    const config = writeConfig({
      sites: [{ name: 'city', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'CITY_PASSWORD' } }],
      exports: [{ name: 'talks', site: 'city', from: '2031-01-01', to: '2031-12-31', outDir: out }],
    });
    const prefix = testPrefix();
    const env = { CITY_PASSWORD: PASSWORD };
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix, env, args: ['--queues', 'export'] });
    try {
      const base = ['--config', config, '--redis', redisUrl(), '--prefix', prefix, 'enqueue', 'export-ics', '--name', 'talks', '--wait'];
      const text = await runCli(base, env);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout.trim()).toBe(`en: 1 events → ${path.join(out, 'talks.en.ics')}`);
      const json = await runCli([...base, '--json'], env);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ name: 'talks', files: [{ lang: 'en', events: 1, changed: false }] });
    } finally {
      await worker.kill('SIGKILL');
    }
  }, 90_000);
});
