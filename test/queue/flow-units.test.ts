import { describe, expect, it } from 'vitest';
import { FlowUnits, type UnitsProgress } from '../../src/queue/follow.ts';

/** `enqueue --wait` counts a planned run's chunk or page jobs; a sync's total comes from its planners. */
describe('FlowUnits: the progress of a planned run', () => {
  const follow = () => {
    const seen: UnitsProgress[] = [];
    return { units: new FlowUnits((p) => seen.push(p)), seen };
  };

  it('regression: a CSV plan counted the chunks of run 70 as run 7\'s; now its own chunks only, of the total the plan gave', () => {
    const { units, seen } = follow();
    units.planned({ finishJobId: 'csv-7-finish', chunks: 3 });
    units.jobDone('csv-7-chunk-0');
    units.jobDone('csv-70-chunk-0');
    units.jobDone('csv-7-finish');
    units.jobDone('csv-7-chunk-2');
    expect(seen.map((p) => `${p.done}/${p.total}`)).toEqual(['1/3', '2/3']);
  });

  it('a sync: no total until every language\'s planner has said how many pages it added, then all of them', () => {
    const { units, seen } = follow();
    units.planned({ finishJobId: 'sync-3-finish', languages: [{ lang: 'en' }, { lang: 'fr' }] });
    units.jobDone('sync-3-en-page-0');
    units.plannerDone('sync-3-en-plan', '{"pages":3}');
    units.plannerDone('sync-30-fr-plan', '{"pages":9}');
    units.jobDone('sync-3-en-page-1');
    units.plannerDone('sync-3-fr-plan', '{"pages":2}');
    units.jobDone('sync-3-fr-page-0');
    expect(seen.map((p) => `${p.done}/${p.total}`)).toEqual(['1/undefined', '2/undefined', '2/5', '3/5']);
  });

  it('a planner that finished before the run\'s plan was known here still gives the total', () => {
    const { units, seen } = follow();
    units.plannerDone('sync-4-en-plan', '{"pages":4}');
    units.planned({ finishJobId: 'sync-4-finish', languages: [{ lang: 'en' }] });
    units.jobDone('sync-4-en-page-3');
    expect(seen.at(-1)).toEqual({ phase: 'write (jobs)', done: 1, total: 4 });
  });

  it('a planner result that is not a page count is left out (the total stays unknown)', () => {
    const { units, seen } = follow();
    units.planned({ finishJobId: 'sync-5-finish', languages: [{ lang: 'en' }] });
    for (const v of ['{"pages":-1}', '{"pages":"7"}', 'not json', '{"pages":1.5}']) units.plannerDone('sync-5-en-plan', v);
    units.jobDone('sync-5-en-page-0');
    expect(seen).toEqual([{ phase: 'write (jobs)', done: 1, total: undefined }]);
  });
});
