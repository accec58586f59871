import type { Language } from '../src/model/languages.ts';
import { FlowAdder } from '../src/queue/flow.ts';
import { defineJob } from '../src/queue/job-definition.ts';
import type { PlanResume, SyncPage, SyncPlan } from '../src/runs/sync-site.ts';
import { languageJobId, pageJobId, PlanRef, syncRunName, type RunRef } from './sync-payload.ts';
import { underLock, withPieceSync } from './sync-run.ts';
import { SyncRunStore } from './sync-store.ts';

/**
 * `sync-plan` reads one language of the source, resolves terms, venues and organizers on the
 * target, and stores each page of planned events in Redis (jobs/sync-store.ts), adding its
 * `sync-page` job under the language's job at once: workers write the first pages while the rest
 * of the source is read. The language's job waits for this job too, so it cannot retire before
 * every page is planned.
 *
 * Taken over after its worker died (or retried), it resumes: the pages stored before are kept
 * (their jobs, added again, are the same jobs), their events are not planned a second time, and
 * what the source lists beside them goes to new pages.
 */
export const syncPlanJob = defineJob({
  name: 'sync-plan',
  part: 'piece',
  queue: 'sync-plan',
  payload: PlanRef,
  historyName: (r) => syncRunName(r.payload),
  async process(job, ref, deps, signal): Promise<{ pages: number }> {
    return underLock(deps, ref, async () => {
      const store = new SyncRunStore(deps.redis, deps.prefix, ref.runId);
      const flow = new FlowAdder(deps);
      try {
        const resume = await resumeFrom(store, ref.lang, (i) => addPage(flow, ref, i));
        const onPage = async (page: SyncPage) => {
          await store.savePage(ref.lang, page);
          await addPage(flow, ref, page.index);
        };
        let plan: SyncPlan | undefined;
        const report = await withPieceSync(deps, job, ref, { lang: ref.lang, phase: 'plan' }, signal, async (sync) => {
          plan = await sync.plan(onPage, resume);
        });
        const { seen, cancelled, listing } = plan as SyncPlan;
        const pages = await store.plannedPages(ref.lang);
        await store.savePlan(ref.lang, { seen, cancelled, listing, pages, report: report.finish() });
        return { pages: pages.length };
      } finally {
        await flow.close();
      }
    });
  },
});

/** The pages an earlier delivery stored: their jobs added again (BullMQ keeps the ones that exist). */
async function resumeFrom(store: SyncRunStore, lang: Language, add: (i: number) => Promise<void>): Promise<PlanResume> {
  const indices = await store.plannedPages(lang);
  const planned: PlanResume['planned'] = [];
  for (const i of indices) {
    for (const it of (await store.page(lang, i)).items) planned.push({ slug: it.slug, origin: it.origin });
    await add(i);
  }
  return { planned, nextIndex: indices.length ? (indices.at(-1) as number) + 1 : 0 };
}

function addPage(flow: FlowAdder, ref: RunRef & { lang: Language }, page: number): Promise<void> {
  const { runId, payload, lockKey, window, lang } = ref;
  const data = { runId, payload, lockKey, window, lang, page };
  return flow.add({ name: 'sync-page', data, jobId: pageJobId(runId, lang, page) }, { name: 'sync-language', jobId: languageJobId(runId, lang) });
}
