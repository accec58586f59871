import { describe, expect, it } from 'vitest';
import { RunReport, type ReportJson } from '../../src/report/report.ts';

const run = { id: 'run', kind: 'sync-site', source: 'a', site: 'b', language: 'en', dryRun: false };

/** A language's report as big as a large site's sync makes it. */
function bigReport(items: number, warnings: number, tag = ''): ReportJson {
  const r = new RunReport(run);
  for (let i = 0; i < items; i++) r.add({ kind: 'events', slug: `e-${i}`, outcome: 'unchanged' });
  // Distinct warnings (a fold keeps a repeated one once).
  for (let i = 0; i < warnings; i++) r.warn(`${tag}w${i}`);
  return r.toJSON();
}

describe('regression: folding a report of hundreds of thousands of items overflowed the call stack', () => {
  it('RunReport.merge passed every item as an argument (push(...items)): 300k items threw "Maximum call stack size exceeded"', () => {
    const total = RunReport.fold(run, [bigReport(300_000, 250_000), bigReport(2, 1, 'second ')]);
    expect(total.items).toHaveLength(300_002);
    expect(total.warnings).toHaveLength(250_001);
    expect(total.counts.events).toMatchObject({ read: 300_002, unchanged: 300_002 });
    expect(total.items.at(-1)?.slug).toBe('e-1');
  });

  it('linked records still appear once each (kind and id), however many are folded in', () => {
    const a = new RunReport(run);
    for (let id = 0; id < 20_000; id++) a.linkExisting({ kind: 'venues', id, name: `v${id}` });
    a.linkExisting({ kind: 'organizers', id: 1, name: 'o' });
    const b = new RunReport(run);
    b.linkExisting({ kind: 'venues', id: 5, name: 'v5' });
    b.linkExisting({ kind: 'organizers', id: 1, name: 'o' });
    b.linkExisting({ kind: 'organizers', id: 2, name: 'p' });
    const total = RunReport.fold(run, [a.toJSON(), b.toJSON()]);
    expect(total.linked).toHaveLength(20_002);
    expect(total.linked.filter((l) => l.kind === 'venues' && l.id === 5)).toHaveLength(1);
  });
});
