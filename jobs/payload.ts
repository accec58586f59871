import { z } from 'zod';
import { ConfiguredSiteName } from '../src/config/sites.ts';
import { sourceKeyFrom } from '../src/model/identity.ts';
import { hasPathSecrets } from '../src/util/redact.ts';

/**
 * What a queue may carry. Whoever can write to Redis or use the dashboard can add a job, so a
 * payload is untrusted input: it may name things the config declares and choose harmless run
 * options, but never carry anything that widens what the worker may do. In particular a payload
 * has no `allow` list (only config sources' `allow` exempts a feed from the SSRF guard), no file
 * path (a CSV rejects file is always `<dataDir>/rejects/<run id>.csv`), no site URL (credentials
 * only go to sites the config declares) and no unknown keys.
 */

export { ConfiguredSiteName };

const SECRET_PARAM = /token|key|secret|pass|auth|sig|session|code/i;

/**
 * An ad-hoc feed location on the queue: an http(s)/webcal URL without secrets. Job data is shown
 * on the dashboard and kept in Redis, so a feed that needs `user:pass@`, a secret-looking query
 * parameter or a key in its path (a private Google or Outlook link, src/util/redact.ts) must be
 * declared as a config source; the job then carries only its name.
 */
export const QueueLocation = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    let u: URL;
    try {
      u = new URL(value.replace(/^webcals?:\/\//i, 'https://'));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'an http(s) or webcal URL (queued jobs never read local files)' });
      return;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'an http(s) or webcal URL (queued jobs never read local files)' });
    if (u.username || u.password) ctx.addIssue({ code: 'custom', message: 'credentials in a queued feed URL would be stored in Redis and shown on the dashboard; declare the feed as a config source and enqueue it by name' });
    if (hasPathSecrets(u)) ctx.addIssue({ code: 'custom', message: 'the URL\'s path holds what looks like a private key (a private calendar link), which would be stored in Redis and shown on the dashboard; declare the feed as a config source and enqueue it by name' });
    for (const name of u.searchParams.keys()) {
      if (SECRET_PARAM.test(name)) ctx.addIssue({ code: 'custom', message: `the query parameter "${name}" looks like a secret, which would be stored in Redis and shown on the dashboard; declare the feed as a config source and enqueue it by name` });
    }
  });

/**
 * The name an import's runs are kept under (run history, pause, resume): the config source it
 * names, else the ad-hoc feed's --source or the key derived from its location, as the run's own
 * source key is (src/runs/options/).
 */
export function importRunName(p: { source: string } | { location: string; source?: string }): string {
  return 'location' in p ? (p.source ?? sourceKeyFrom(p.location)) : p.source;
}

/**
 * The run lock of an import source (one run at a time per site, language and source, across all
 * workers): an ICS import holds it for its job, a CSV import from its planner to its finish job.
 */
export function importRunLockKey(prefix: string, p: { site: { key: string }; lang: string; sourceKey: string }): string {
  return `${prefix}:lock:import:${p.site.key}:${p.lang}:${p.sourceKey}`;
}
