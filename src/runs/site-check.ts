import { CalendarClient, PreflightError, preflight, type SiteFacts } from '../api/index.ts';
import type { ResolvedSite } from '../config/sites.ts';
import { canonicalZone, offsetZoneName } from '../model/timezones.ts';
import type { Language } from '../model/languages.ts';
import { MemoryLedger, type Ledger } from '../write/ledger.ts';
import { ledgerOnSite, RECORD_KINDS, type RecordKind } from '../write/ledger-on-site.ts';
import { clientHooks, ledgerFor, RunFailedError, type RunContext } from './context.ts';

/** Where a run counts the requests a check sent. */
interface RequestCounter {
  countRequests(s: SiteFacts['requests']): void;
}

/**
 * The preflight of a run's site (src/api/preflight.ts), its failure turned into the run's failure
 * (exit 1, one message naming the fix). Every run calls it before reading items.
 */
export async function checkSite(site: ResolvedSite, opts: { write: boolean }, ctx: RunContext, report?: RequestCounter): Promise<SiteFacts> {
  try {
    const facts = await preflight(site.connection, { write: opts.write, signal: ctx.signal });
    report?.countRequests(facts.requests);
    return facts;
  } catch (err) {
    if (err instanceof PreflightError) throw new RunFailedError(err.code, err.message, { cause: err });
    throw err;
  }
}

export interface DefaultZone {
  zone: string;
  /** Why this zone, for the report. */
  from: string;
}

/**
 * The zone for floating times: the one the user gave, else the site's own (as The Events
 * Calendar's importer does: a floating time means the calendar's local time), else UTC when the
 * site publishes none.
 */
export function defaultZone(given: string | undefined, facts: SiteFacts): DefaultZone {
  if (given) return { zone: given, from: 'given with --default-tz (defaultTimezone)' };
  if (facts.timezoneString) {
    const zone = canonicalZone(facts.timezoneString);
    if (zone) return { zone, from: "the site's zone, from its timezone_string" };
  }
  if (facts.gmtOffset !== undefined) {
    const zone = offsetZoneName(Math.round(facts.gmtOffset * 3600));
    if (zone) return { zone, from: `the site's zone, from its gmt_offset ${facts.gmtOffset}` };
  }
  return { zone: 'UTC', from: 'the site publishes no time zone' };
}

/** What the run goes on with after the site was checked against its ledger (ledgerHeldBySite). */
export interface HeldLedger {
  ledger: Ledger;
  /** Set when the site had lost every record of the ledger: what the run did about it, for its report. */
  setAside?: string;
}

/**
 * After the preflight: whether the site still holds what the source's ledger says calsync wrote
 * there (src/write/ledger-on-site.ts). When it lost it all (a reset site, a restored older backup),
 * the ledger's records are set aside and the run writes every record again, as after a Redis wipe:
 * by slug, so nothing is duplicated. A dry run leaves Redis as it is and goes on with an empty
 * ledger, so it shows what the real run will write.
 */
export async function ledgerHeldBySite(site: ResolvedSite, scope: { lang: Language; source: string; label?: string }, kind: RecordKind, ctx: RunContext, run: { dryRun: boolean; report?: RequestCounter }): Promise<HeldLedger> {
  const ledger = ledgerFor(ctx, { site: site.key, language: scope.lang, source: scope.source });
  const client = new CalendarClient({ ...site.connection, language: scope.lang, ...clientHooks(ctx, site.key) });
  let held;
  try {
    held = await ledgerOnSite(ledger, kind, client, scope.lang);
  } finally {
    run.report?.countRequests(client.stats());
    await client.close();
  }
  if (held.state !== 'forgotten') return { ledger };
  const noun = kind.slice(0, -1);
  const done = run.dryRun ? `a real run sets calsync's ledger of them aside and writes every ${noun} again` : `calsync's ledger of them was set aside and every ${noun} is written again`;
  const setAside = `the site no longer has the ${kind} calsync wrote there for ${scope.label ?? scope.source} (ids ${held.ids.join(', ')} are not on it: was it reset, or restored from an older backup?): ${done}`;
  if (run.dryRun) return { ledger: new MemoryLedger(), setAside };
  await ledger.forget(RECORD_KINDS);
  return { ledger, setAside };
}
