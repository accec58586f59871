import { describe, expect, it } from 'vitest';
import { inspectCsv } from '../../src/sources/csv/index.ts';
import { bytesOpen, opts, refusal } from '../csv/helpers.ts';

/**
 * Found onboarding a `;`-separated export with `--delimiter ,` (the user's guess): the run was
 * refused with "no column header is recognized … map the columns with --map mapping.json", which
 * sends the user to write a mapping for headers calsync knows; the mistake was the delimiter.
 */
describe('regression: a wrong --delimiter was answered with advice to write a --map file', () => {
  const semi = 'Event ID;Event Name;Event Start Date;Timezone\nev-1;Führung;2027-02-01 10:00;Europe/Berlin\n';

  it('names the delimiter that splits the header into known columns', async () => {
    const r = await refusal(inspectCsv(bytesOpen(semi), opts({ delimiter: ',' })));
    expect(r.reason).toMatch(/no column header is recognized/);
    expect(r.hint).toMatch(/--delimiter ';'/);
    expect(r.hint).not.toMatch(/--map/);
  });

  it('a tab-separated file read with --delimiter ";" is told to use tab', async () => {
    const r = await refusal(inspectCsv(bytesOpen(semi.replaceAll(';', '\t')), opts({ delimiter: ';' })));
    expect(r.hint).toMatch(/--delimiter tab/);
  });

  it('headers that no delimiter makes known still get the --map advice', async () => {
    const r = await refusal(inspectCsv(bytesOpen('Foo;Bar\n1;2\n'), opts({ delimiter: ',' })));
    expect(r.hint).toMatch(/--map/);
  });

  it('with the right delimiter (or auto) the file is read', async () => {
    expect((await inspectCsv(bytesOpen(semi), opts({ delimiter: ';' }))).headers).toHaveLength(4);
    expect((await inspectCsv(bytesOpen(semi), opts())).delimiter).toBe(';');
  });
});
