import { describe, expect, it } from 'vitest';
import { RunReport, reportExitCode, type ReportJson } from '../../src/report/report.ts';
import { syncPairReport } from '../../src/runs/sync-site.ts';

/** A language's report as a sync-language job returns it: some events written, a retirement run. */
function languageReport(lang: string, retire: ReportJson['retire']): ReportJson {
  const r = new RunReport({ id: 'run', kind: 'sync-site', source: 'a', site: 'b', language: lang, dryRun: false });
  r.add({ kind: 'events', slug: `${lang}-1`, outcome: 'created' });
  r.add({ kind: 'events', slug: `${lang}-2`, outcome: 'retired' });
  r.countRequests({ requests: 3, retries: 1, throttled: 0 });
  if (retire) r.retire = retire;
  return r.finish();
}

describe('one report fold', () => {
  it("regression: a run folded from its jobs repeated each job's identical warning (a trashed venue, once per CSV chunk)", () => {
    const chunk = (n: number) => {
      const r = new RunReport({ id: 'run', kind: 'import-csv', source: 'a.csv', site: 'b', language: 'en', dryRun: false });
      r.warn(`venue "Hall" (id 7) is in the site's trash: restore it to link it again`);
      r.warn(`row ${n}: a warning of its own`);
      return r.finish();
    };
    const run = RunReport.fold({ id: 'run', kind: 'import-csv', source: 'a.csv', site: 'b', language: 'en', dryRun: false }, [chunk(1), chunk(2), chunk(3)]).toJSON();
    expect(run.warnings).toEqual([`venue "Hall" (id 7) is in the site's trash: restore it to link it again`, 'row 1: a warning of its own', 'row 2: a warning of its own', 'row 3: a warning of its own']);
  });

  it('regression: RunReport.merge dropped the retire summary, so a folded report lost its retire counts', () => {
    const en = languageReport('en', { policy: 'trash', candidates: 4, retired: 3, failed: 1, refused: false });
    const fr = languageReport('fr', { policy: 'trash', candidates: 2, retired: 2, failed: 0, refused: false });
    const total = new RunReport({ id: 'run', kind: 'sync-site', source: 'a', site: 'b', language: 'en,fr', dryRun: false });
    total.merge(en);
    total.merge(fr);
    expect(total.toJSON().retire).toEqual({ policy: 'trash', candidates: 6, retired: 5, failed: 1, refused: false });
    // A failed retirement in one language keeps the folded run's exit code at 2.
    expect(reportExitCode(total.toJSON())).toBe(2);
  });

  it('a refusal in any language refuses the fold, with that language\'s reason', () => {
    const en = languageReport('en', { policy: 'trash', candidates: 1, retired: 1, failed: 0, refused: false });
    const fr = languageReport('fr', { policy: 'trash', candidates: 90, retired: 0, failed: 0, refused: true, reason: '90 of 100 vanished' });
    const folded = RunReport.fold({ id: 'run', kind: 'sync-site', source: 'a', site: 'b', language: 'en,fr', dryRun: false }, [en, fr]).toJSON();
    expect(folded.retire).toEqual({ policy: 'trash', candidates: 91, retired: 1, failed: 0, refused: true, reason: '90 of 100 vanished' });
    expect(reportExitCode(folded)).toBe(2);
  });

  it('the sync pair report is that fold: counts, items, requests and retirement add up', () => {
    const en = languageReport('en', { policy: 'draft', candidates: 1, retired: 1, failed: 0, refused: false });
    const fr = languageReport('fr', undefined);
    const r = syncPairReport([en, fr], { id: 'sync-1', from: 'a', to: 'b', dryRun: false });
    expect(r.run).toMatchObject({ id: 'sync-1', kind: 'sync-site', source: 'a', site: 'b', language: 'en,fr' });
    expect(r.counts.events).toMatchObject({ read: 2, created: 2, retired: 2 });
    expect(r.items).toHaveLength(4);
    expect(r.requests).toEqual({ total: 6, retries: 2, throttled: 0 });
    expect(r.retire).toEqual({ policy: 'draft', candidates: 1, retired: 1, failed: 0, refused: false });
  });
});
