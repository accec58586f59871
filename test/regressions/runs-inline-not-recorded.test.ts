import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { writeConfig } from '../support/worker-process.ts';

/**
 * Found after a morning of inline `calsync import ics …` runs against a real site: `calsync runs`
 * answered "no runs recorded yet", as if nothing had run. The history holds queued runs only; the
 * inline commands print their report and record nothing. The empty answer now says so.
 */
describe('regression: `calsync runs` after inline imports said only "no runs recorded yet"', () => {
  it('says the history holds queued runs and that inline commands are not recorded', async () => {
    const config = writeConfig({ sites: [{ name: 'city', restRoot: 'http://127.0.0.1:9/wp-json' }] });
    const r = await runCli(['--config', config, '--redis', redisUrl(), '--prefix', testPrefix(), 'runs'], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^no runs recorded yet/);
    expect(r.stdout).toMatch(/queued runs/);
    expect(r.stdout).toMatch(/inline .*not recorded/);
  });
});
