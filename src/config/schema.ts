import { z } from 'zod';
import { DEFAULT_NAMESPACE } from '../api/connection.ts';
import { siteKeyFor } from './sites.ts';
import { Language } from '../model/languages.ts';
import { ConfigName, DateSpec, DateWindow, ImportFields, RunLanguage } from '../runs/options/common.ts';
import { CsvFields, CsvKind } from '../runs/options/import-csv.ts';
import { IcsFields } from '../runs/options/import-ics.ts';
import { ExportOptions } from '../runs/options/export-ics.ts';
import { SyncFields, SYNC_WINDOW } from '../runs/options/sync-site.ts';

const CRON = /^(\S+\s+){4,5}\S+$/;
const INTERVAL = /^\d+(ms|s|m|h|d)$/;

/** A cron expression (5 or 6 fields) or an interval like "30m". */
export const Schedule = z.string().refine((s) => CRON.test(s.trim()) || INTERVAL.test(s.trim()), {
  message: 'expected a cron expression or an interval like "30m"',
});

export function intervalMs(schedule: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(schedule.trim());
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms'];
  return Number(m[1]) * unit;
}

const noInlineSecret = (field: string, ref: string) =>
  z.never({ error: `secrets are not allowed inline; put it in an environment variable and name it with "${ref}"` }).optional().describe(field);

export const SiteAuth = z.union([
  z.strictObject({ user: z.string().min(1), passwordEnv: z.string().min(1), password: noInlineSecret('password', 'passwordEnv') }),
  z.strictObject({ tokenEnv: z.string().min(1), token: noInlineSecret('token', 'tokenEnv') }),
]);

export const SiteConfig = z.strictObject({
  name: ConfigName,
  restRoot: z.url({ protocol: /^https?$/ }).refine((u) => {
    // zod runs this even when the URL check failed: a string that is no URL is reported there.
    if (!URL.canParse(u)) return true;
    const url = new URL(u);
    return url.username === '' && url.password === '';
  }, 'secrets are not allowed inline; remove user:password@ from the URL and use auth.passwordEnv (or auth.tokenEnv)'),
  namespace: z.string().default('calendar/events/v1'),
  auth: SiteAuth.optional(),
  languages: z.array(Language).min(1).default(['en']),
  /** Requests in flight to this site per run. */
  concurrency: z.number().int().min(1).max(64).default(8),
  /** Requests per second across ALL workers (Redis-backed). */
  requestsPerSecond: z.number().positive().optional(),
});
export type SiteConfig = z.infer<typeof SiteConfig>;

const SourceBase = {
  name: ConfigName,
  site: z.string(),
  language: RunLanguage,
  schedule: Schedule.optional(),
  ...ImportFields,
};

// Every run option below is defined once, with its default and limits, in src/runs/options/.
export const IcsSourceConfig = z.strictObject({
  ...SourceBase,
  kind: z.literal('ics'),
  /** URL (http, https, webcal) or, for local demos, a file path. */
  url: z.string().min(1),
  ...IcsFields,
  /** Fixed or relative dates (`2000-01-01`, `-30d`); when given, it replaces pastDays/horizonDays. */
  window: DateWindow.optional(),
});

export const CsvSourceConfig = z.strictObject({
  ...SourceBase,
  kind: z.literal('csv'),
  url: z.string().min(1),
  csvKind: CsvKind.default('events'),
  ...CsvFields,
});

export const SourceConfig = z.discriminatedUnion('kind', [IcsSourceConfig, CsvSourceConfig]);
export type SourceConfig = z.infer<typeof SourceConfig>;
export type IcsSourceConfig = z.infer<typeof IcsSourceConfig>;
export type CsvSourceConfig = z.infer<typeof CsvSourceConfig>;

export { DateSpec };

export const ExportConfig = ExportOptions.extend({ schedule: Schedule.optional() });
export type ExportConfig = z.infer<typeof ExportConfig>;

export const SyncConfig = z.strictObject({
  name: ConfigName,
  from: z.string(),
  to: z.string(),
  languages: z.array(Language).min(1).optional(),
  window: DateWindow.default(SYNC_WINDOW),
  ...SyncFields,
  schedule: Schedule.optional(),
});
export type SyncConfig = z.infer<typeof SyncConfig>;

const hasUserinfo = (u: string) => URL.canParse(u) && (new URL(u).username !== '' || new URL(u).password !== '');

export const CalsyncConfig = z
  .strictObject({
    /** Redis URL; omit for the embedded default (a local redis-server under .data/). */
    redis: z.string().optional(),
    dataDir: z.string().default('.data'),
    sites: z.array(SiteConfig).default([]),
    sources: z.array(SourceConfig).default([]),
    exports: z.array(ExportConfig).default([]),
    syncs: z.array(SyncConfig).default([]),
    worker: z
      .strictObject({
        concurrency: z.partialRecord(z.enum(['import', 'export', 'sync', 'sync-plan']), z.number().int().min(1).max(64)).default({}),
        shutdownTimeoutMs: z.number().int().min(100).default(30_000),
        /** A job whose worker stops renewing its lock for this long is taken over (stalled). */
        lockDurationMs: z.number().int().min(1000).default(60_000),
        stalledIntervalMs: z.number().int().min(500).default(30_000),
        /** Times a job may be taken over after its worker died before it is failed. */
        // BullMQ's own default: a job whose worker died under it twice ends failed (a poison job).
        maxStalledCount: z.number().int().min(1).max(100).default(1),
      })
      .default({ concurrency: {}, shutdownTimeoutMs: 30_000, lockDurationMs: 60_000, stalledIntervalMs: 30_000, maxStalledCount: 1 }),
    serve: z
      .strictObject({
        port: z.number().int().min(0).max(65535).default(8788),
        host: z.string().default('127.0.0.1'),
        basicAuth: z.strictObject({ user: z.string(), passwordEnv: z.string() }).optional(),
        publicUrl: z.string().optional(),
      })
      .default({ port: 8788, host: '127.0.0.1' }),
    history: z.strictObject({ keep: z.number().int().min(1).default(50), pauseAfterFailures: z.number().int().min(1).default(5) }).default({ keep: 50, pauseAfterFailures: 5 }),
  })
  .superRefine((c, ctx) => {
    const sites = new Set(c.sites.map((s) => s.name));
    const dup = (list: { name: string }[], path: string) => {
      const seen = new Set<string>();
      list.forEach((x, i) => {
        if (seen.has(x.name)) ctx.addIssue({ code: 'custom', path: [path, i, 'name'], message: `duplicate name "${x.name}"` });
        seen.add(x.name);
      });
    };
    dup(c.sites, 'sites');
    dup(c.sources, 'sources');
    dup(c.exports, 'exports');
    dup(c.syncs, 'syncs');
    const needSite = (name: string, path: (string | number)[]) => {
      if (!sites.has(name) && !/^https?:\/\//.test(name)) ctx.addIssue({ code: 'custom', path, message: `unknown site "${name}" (declare it under sites, or give a REST root URL)` });
      else if (!sites.has(name) && hasUserinfo(name)) ctx.addIssue({ code: 'custom', path, message: 'secrets are not allowed inline; remove user:password@ from the URL, declare the site under sites with auth.passwordEnv (or auth.tokenEnv)' });
    };
    c.sources.forEach((s, i) => needSite(s.site, ['sources', i, 'site']));
    c.exports.forEach((s, i) => needSite(s.site, ['exports', i, 'site']));
    // A config site and a URL are one site when they name the same REST root and namespace: the
    // key a run compares them by (src/config/sites.ts, syncParams), so a config that passes runs.
    const endpoint = (nameOrUrl: string) => {
      const site = c.sites.find((x) => x.name === nameOrUrl);
      try {
        return siteKeyFor((site?.restRoot ?? nameOrUrl).replace(/\/+$/, ''), site?.namespace ?? DEFAULT_NAMESPACE);
      } catch {
        return undefined; // not a URL: needSite reported it
      }
    };
    c.syncs.forEach((s, i) => {
      needSite(s.from, ['syncs', i, 'from']);
      needSite(s.to, ['syncs', i, 'to']);
      const from = endpoint(s.from);
      if (from !== undefined && from === endpoint(s.to)) ctx.addIssue({ code: 'custom', path: ['syncs', i, 'to'], message: `"${s.to}" is the same site as from "${s.from}": a sync copies one site into another (it would copy every event beside itself)` });
    });
  });
export type CalsyncConfig = z.infer<typeof CalsyncConfig>;
