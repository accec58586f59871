import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.ts';
import { ReportJson } from '../../src/report/report.ts';
import { runCli } from '../support/cli.ts';
import { corpus } from '../support/site.ts';

/** Issue 13 items 8, 9 and 11, as a user meets them on the command line. */

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { REDIS_URL: '', ...env });


const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

const ICS = corpus('ics', 'floating-times-multiday-no-prodid.ics');

describe('issue 13: options are checked before any work, and every outcome is reported', () => {
  it('regression: --retire burn, --lang nb and --horizon-days -5 printed raw validation JSON', async () => {
    const r = await cli(['import', 'ics', ICS, '--site', 'http://127.0.0.1:9/wp-json', '--retire', 'burn', '--lang', 'nb', '--horizon-days', '-5']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/[{[]\s*"/);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual(expect.arrayContaining([
      'calsync: --retire: "burn" is not one of keep, draft, trash, delete',
      'calsync: --lang: "nb" is not one of en, fr, de, it, es, sv',
      'calsync: --horizon-days: -5 is too small: at least 1',
    ]));
    expect(lines).toHaveLength(3);
  });

  it('regression: --lang nb was only checked after the CSV was read', async () => {
    // The file does not exist: the option is refused before anything is read or contacted.
    const r = await cli(['import', 'csv', '/nonexistent/rows.csv', '--site', 'http://127.0.0.1:9/wp-json', '--lang', 'nb']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('calsync: --lang: "nb" is not one of en, fr, de, it, es, sv');
  });

  it('regression: an invalid --default-tz (Europe/Berln) was accepted by the ICS import and the event written as UTC', async () => {
    for (const cmd of [['import', 'ics', ICS], ['import', 'csv', '/nonexistent/rows.csv']]) {
      const r = await cli([...cmd, '--site', 'http://127.0.0.1:9/wp-json', '--default-tz', 'Europe/Berln']);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe('calsync: --default-tz: unknown time zone "Europe/Berln" (did you mean Europe/Berlin?): give an IANA name such as Europe/Berlin, or an offset such as UTC+02:00');
    }
  });

  it('regression: an unknown zone in a config key (defaultTimezone) was accepted', () => {
    const bad = { sites: [{ name: 's', restRoot: 'http://127.0.0.1:9/wp-json' }], sources: [{ name: 'feed', kind: 'ics', site: 's', url: 'https://example.org/f.ics', defaultTimezone: 'Europe/Berln' }] };
    expect(() => parseConfig(bad, 'calsync.config.json')).toThrow(ConfigError);
    expect(() => parseConfig(bad, 'calsync.config.json')).toThrow(/sources\[0\]\.defaultTimezone: unknown time zone "Europe\/Berln"/s);
    const good = parseConfig({ ...bad, sources: [{ ...bad.sources[0], defaultTimezone: 'us/eastern' }] }, 'calsync.config.json');
    expect(good.sources[0]!.defaultTimezone).toBe('America/New_York');
  });

  it('--version prints the package version', async () => {
    const r = await cli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
  });

  it('regression: --json printed nothing on stdout when the whole run failed', async () => {
    const port = await freePort();
    const r = await cli(['import', 'ics', ICS, '--site', `http://127.0.0.1:${port}/wp-json`, '--json'], { CALSYNC_USER: 'u', CALSYNC_PASSWORD: 'p' });
    expect(r.code).toBe(1);
    const report = ReportJson.parse(JSON.parse(r.stdout));
    expect(report.failure?.code).toBe('preflight-unreachable');
    expect(report.failure?.message).toContain(`nothing listens at http://127.0.0.1:${port}`);
    expect(r.stderr).toContain(`calsync: nothing listens at http://127.0.0.1:${port}`);
    // Bad options are an outcome too.
    const bad = await cli(['import', 'ics', ICS, '--site', `http://127.0.0.1:${port}/wp-json`, '--retire', 'burn', '--json']);
    expect(bad.code).toBe(1);
    expect(ReportJson.parse(JSON.parse(bad.stdout)).failure).toEqual({ code: 'bad-options', message: '--retire: "burn" is not one of keep, draft, trash, delete' });
  });
});
