import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

const cli = (args: string[]) => runCli(['--redis', redisUrl(), '--prefix', testPrefix(), ...args], { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD });


/**
 * Issue 13 item 5: random bytes, an HTML page or an empty file given as ICS imported 0 events with
 * exit 0 and no warning. Each is now refused with exit 1 and a message saying what the file is.
 */
describe('regression: a file that is not iCalendar imported 0 events with exit 0', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  const dir = mkdtempSync(path.join(tmpdir(), 'calsync-notics-'));
  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(async () => env.close());

  const cases: Array<[string, Buffer | string, RegExp]> = [
    ['empty.ics', '', /is empty/],
    ['page.ics', '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><p>Please sign in</p></body></html>\n', /looks like an HTML page/],
    ['random.ics', randomBytes(4096), /is binary data/],
    ['notes.ics', 'Meeting notes\nTuesday: budget\nWednesday: hiring\n', /no BEGIN:VCALENDAR/],
  ];
  it.each(cases)('%s: exit 1, says what the file looks like, writes nothing', async (name, content, says) => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    const r = await cli(['import', 'ics', file, '--site', env.sandbox.url, '--window', '2024-01-01..2024-12-31']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(/is not an iCalendar file/);
    expect(r.stderr).toMatch(says);
    expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(env.sandbox.dump('en').events).toHaveLength(0);
  });

  it('an empty but valid calendar (VCALENDAR with no events) is still fine: exit 0', async () => {
    const file = path.join(dir, 'none.ics');
    writeFileSync(file, 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nEND:VCALENDAR\r\n');
    const r = await cli(['import', 'ics', file, '--site', env.sandbox.url, '--window', '2024-01-01..2024-12-31']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });
});
