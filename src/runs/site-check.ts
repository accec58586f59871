import { PreflightError, preflight, type SiteFacts } from '../api/index.ts';
import type { ResolvedSite } from '../config/sites.ts';
import { canonicalZone, offsetZoneName } from '../model/timezones.ts';
import { RunFailedError, type RunContext } from './context.ts';

/**
 * The preflight of a run's site (src/api/preflight.ts), its failure turned into the run's failure
 * (exit 1, one message naming the fix). Every run calls it before reading items.
 */
export async function checkSite(site: ResolvedSite, opts: { write: boolean }, ctx: RunContext, report?: { countRequests(s: SiteFacts['requests']): void }): Promise<SiteFacts> {
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
