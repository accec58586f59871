import type { Redis } from 'ioredis';
import { z } from 'zod';
import { Origin } from '../src/model/draft.ts';
import { ReportJson } from '../src/report/report.ts';
import { readStored, readStoredIfAny, STORED_TTL_S, writeStored } from '../src/queue/stored.ts';
import type { SyncPage, SyncPlan } from '../src/runs/sync-site.ts';

/**
 * Where a planned sync keeps its pages and plans in Redis, and the schemas they are read back
 * with: `<prefix>:sync:<run id>:<lang>:page:<n>` and `…:<lang>:plan`, until sync-language deletes them.
 */

const PlannedUntouched = z.looseObject({ slug: z.string(), origin: Origin, untouched: z.number().int() });
// The body is the site write the planner rendered: its shape is the writer's (src/write/body.ts);
// checked here for what every body has, and passed on whole.
const PlannedWrite = z.looseObject({
  slug: z.string(),
  origin: Origin,
  body: z.looseObject({ title: z.string(), start_date: z.string(), end_date: z.string() }),
  fp: z.string(),
  notes: z.array(z.string()),
  srcMod: z.string().optional(),
  links: z.string().optional(),
});
export const StoredSyncPage = z.strictObject({ index: z.number().int().min(0), items: z.array(z.union([PlannedUntouched, PlannedWrite])) });

/** What sync-language needs from the planner: what the source still has, and the planning's own report. */
// `listing` is optional: a plan stored by a worker from before it was kept still retires (by UTC days).
// `pages` (the page indices) is optional: a plan stored before pages were fanned out while planning
// had its page count in the language job's data.
export const StoredSyncPlan = z.strictObject({
  seen: z.array(z.string()),
  cancelled: z.array(z.string()),
  listing: z.enum(['local-days', 'utc-days']).optional(),
  pages: z.array(z.number().int().min(0)).optional(),
  report: ReportJson,
});
export type StoredSyncPlan = Pick<SyncPlan, 'seen' | 'cancelled'> & Partial<Pick<SyncPlan, 'listing'>> & { pages?: number[]; report: ReportJson };

export class SyncRunStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly runId: string;

  constructor(redis: Redis, prefix: string, runId: string) {
    this.redis = redis;
    this.prefix = prefix;
    this.runId = runId;
  }

  private key(lang: string, part: string): string {
    return `${this.prefix}:sync:${this.runId}:${lang}:${part}`;
  }

  /**
   * Stores a page and records its index among the language's planned pages, in that order: an
   * index recorded always has its page (a planner taken over after a crash resumes from them).
   */
  async savePage(lang: string, page: SyncPage): Promise<void> {
    await writeStored(this.redis, this.key(lang, `page:${page.index}`), page);
    await this.redis.multi().sadd(this.key(lang, 'pages'), String(page.index)).expire(this.key(lang, 'pages'), STORED_TTL_S).exec();
  }

  /** The indices of the pages an earlier delivery of the language's planner stored, in order. */
  async plannedPages(lang: string): Promise<number[]> {
    const members = await this.redis.smembers(this.key(lang, 'pages'));
    return members.map(Number).filter((i) => Number.isSafeInteger(i) && i >= 0).sort((a, b) => a - b);
  }

  savePlan(lang: string, plan: StoredSyncPlan): Promise<void> {
    return writeStored(this.redis, this.key(lang, 'plan'), plan);
  }

  async page(lang: string, i: number): Promise<SyncPage> {
    const page = await readStored(this.redis, this.key(lang, `page:${i}`), StoredSyncPage, `page ${i} (${lang}) of sync run ${this.runId}`);
    // Checked above for every field a planned event has; the body's full type is the writer's.
    return page as unknown as SyncPage;
  }

  /** A page whose job failed: its events, if Redis still holds them. */
  async pageIfAny(lang: string, i: number): Promise<SyncPage | undefined> {
    const page = await readStoredIfAny(this.redis, this.key(lang, `page:${i}`), StoredSyncPage, `page ${i} (${lang}) of sync run ${this.runId}`);
    return page as unknown as SyncPage | undefined;
  }

  plan(lang: string): Promise<StoredSyncPlan> {
    return readStored(this.redis, this.key(lang, 'plan'), StoredSyncPlan, `the plan of sync run ${this.runId} (${lang})`);
  }

  /** Deletes a language's plan and pages (their indices) once it is retired. */
  async drop(lang: string, pages: number[]): Promise<void> {
    await this.redis.del(this.key(lang, 'plan'), this.key(lang, 'pages'), ...pages.map((i) => this.key(lang, `page:${i}`)));
  }
}
