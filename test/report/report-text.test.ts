import { describe, expect, it } from 'vitest';
import { ITEM_KINDS, RunReport, formatReport } from '../../src/report/report.ts';

describe('text report wording', () => {
  it('regression: the text report said "FAILED categorie …" (a plural cut to a non-word)', () => {
    const r = new RunReport({ id: 'r', kind: 'import-ics', source: 's', site: 'site', language: 'en', dryRun: false });
    for (const kind of ITEM_KINDS) r.add({ kind, outcome: 'failed', slug: `x-${kind}`, reason: 'refused' });
    const text = formatReport(r.finish());
    expect(text).toContain('FAILED category x-categories: refused');
    expect(text).not.toMatch(/categorie /);
    for (const noun of ['event', 'venue', 'organizer', 'tag']) expect(text).toContain(`FAILED ${noun} x-`);
  });
});
