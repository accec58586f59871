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

/**
 * The per-file occurrence cap's refusal told users to raise a limit that no option, config key or
 * job field could set. `--max-occurrences` (config: a source's `maxOccurrences`) sets it.
 */
describe('regression: the occurrence cap named a setting users could not reach', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  const dir = mkdtempSync(path.join(tmpdir(), 'calsync-cap-'));
  const file = path.join(dir, 'daily.ics');
  beforeAll(async () => {
    env = await testSite();
    writeFileSync(file, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//x//y//EN', 'BEGIN:VEVENT', 'UID:daily@x', 'SUMMARY:Daily', 'DTSTART:20240101T100000Z', 'DTEND:20240101T110000Z', 'RRULE:FREQ=DAILY;COUNT=30', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n'));
  });
  afterAll(async () => env.close());

  it('--max-occurrences 10 refuses a 30-occurrence file with exit 1, naming the option; without it the file imports', async () => {
    const capped = await cli(['import', 'ics', file, '--site', env.sandbox.url, '--window', '2024-01-01..2024-12-31', '--max-occurrences', '10']);
    expect(capped.code, capped.stdout + capped.stderr).toBe(1);
    expect(capped.stderr).toMatch(/more than 10 .*--max-occurrences/);
    expect(env.sandbox.dump('en').events).toHaveLength(0);

    const plain = await cli(['import', 'ics', file, '--site', env.sandbox.url, '--window', '2024-01-01..2024-12-31']);
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
    expect(env.sandbox.dump('en').events).toHaveLength(30);
  });
});
