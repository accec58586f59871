import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProgressLine } from '../../src/cli/progress.ts';
import { ImageGuard } from '../../src/sources/fetch/image-guard.ts';
import type { LookupFn } from '../../src/sources/fetch/index.ts';
import { formatReport, RunReport } from '../../src/report/report.ts';
import { terminalSafe } from '../../src/util/terminal.ts';

/** Anything a terminal would act on rather than print: C0 (newline included), DEL, C1. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('regression: control characters from feed or CSV cells reached the terminal raw', () => {
  // Clear the screen, move the cursor home and print a fake success line; OSC retitles the window;
  // the 8-bit CSI (U+009B) does the same on terminals that honour C1.
  const HOSTILE = 'row\u001b[2J\u001b[H\u001b]0;pwned\u0007done: 0 failed\r\u009b31mred\u0000\u007f';

  it('the text report escapes every control character a reason, warning or source name carries', () => {
    const report = new RunReport({ id: 'r', kind: 'import-csv', source: `evil${HOSTILE}.csv`, site: 'site', language: 'en', dryRun: false });
    report.add({ kind: 'events', outcome: 'failed', reason: `Title: '${HOSTILE}' is not a date\nforged line`, origin: { source: 'x.csv', line: 3 } });
    report.warn(`column ${HOSTILE} not mapped`);
    const text = formatReport(report.finish());
    for (const line of text.split('\n')) expect(line).not.toMatch(CONTROL);
    expect(text).toContain('\\x1B[2J');
    expect(text).toContain('\\x9B31mred');
    expect(text).toContain('is not a date\\nforged line'); // a cell cannot forge a report line
  });

  it('the progress line prints a hostile phase name as text', () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let written = '';
    (stream as unknown as PassThrough).on('data', (b: Buffer) => (written += b.toString()));
    new ProgressLine({ stream }).update({ phase: `rows${HOSTILE}`, done: 1, total: 1 });
    expect(written.replace(/\n$/, '')).not.toMatch(CONTROL);
    expect(written).toContain('rowsrow\\x1B[2J');
  });

  it('one helper: multi-line messages keep their own newlines only when asked', () => {
    expect(terminalSafe('a\nb\u001b')).toBe('a\\nb\\x1B');
    expect(terminalSafe('a\nb\u001b', { multiline: true })).toBe('a\nb\\x1B');
  });
});

describe('regression: image URLs forwarded to the site were fetched by it server-side (SSRF through the site)', () => {
  const fakeDns = (table: Record<string, string[]>): LookupFn => (host, _o, cb) => {
    const a = table[host];
    if (!a) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    cb(null, a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  const guard = new ImageGuard({
    lookup: fakeDns({ 'cdn.example': ['93.184.215.14'], 'rebind.example': ['93.184.215.14', '127.0.0.1'], 'meta.example': ['169.254.169.254'] }),
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://127.0.0.1:6379/', 'loopback'],
    ['http://2130706433/x.png', 'loopback'], // decimal spelling of 127.0.0.1
    ['http://0x7f.1/x.png', 'loopback'],
    ['http://[::1]/x.png', 'loopback'],
    ['http://[::ffff:10.0.0.1]/x.png', 'private'],
    ['http://10.0.0.5/admin.png', 'private'],
    ['http://192.168.1.1/x.png', 'private'],
    ['http://meta.example/x.png', 'resolves to 169.254.169.254'],
    ['http://rebind.example/x.png', 'resolves to 127.0.0.1'],
    ['http://unknown.example/x.png', 'could not be resolved'],
    ['file:///etc/passwd', 'scheme'],
    ['gopher://127.0.0.1:6379/_x', 'scheme'],
  ])('refuses %s', async (url, why) => {
    expect(await guard.problem(url)).toContain(why);
  });

  it('lets public images, attachment ids and allow-listed or configured hosts through', async () => {
    expect(await guard.problem('https://cdn.example/p.jpg')).toBeUndefined();
    expect(await guard.problem('http://93.184.215.14/p.jpg')).toBeUndefined();
    expect(await guard.problem('812')).toBeUndefined();
    const configured = new ImageGuard({ allow: ['10.0.0.0/8'], trustedOrigins: ['http://127.0.0.1:8080/wp-json/'] });
    expect(await configured.problem('http://10.1.2.3/p.jpg')).toBeUndefined();
    expect(await configured.problem('http://127.0.0.1:8080/wp-content/uploads/p.jpg')).toBeUndefined();
    expect(await configured.problem('http://169.254.169.254/')).toContain('link-local');
  });

  it('regression: a sync source trusted for its media was trusted on every port of its host (its Redis, its admin services)', async () => {
    const configured = new ImageGuard({ trustedOrigins: ['http://127.0.0.1:8080/wp-json/'] });
    expect(await configured.problem('http://127.0.0.1:8080/wp-content/uploads/p.jpg')).toBeUndefined();
    expect(await configured.problem('http://127.0.0.1:6379/x.png')).toContain('127.0.0.1 is');
    expect(await configured.problem('https://127.0.0.1:8080/p.jpg')).toContain('127.0.0.1 is');
    expect(await configured.problem('http://127.0.0.1/p.jpg')).toContain('127.0.0.1 is');
  });
});
