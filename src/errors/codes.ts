import { z } from 'zod';

/**
 * The one namespace of codes for every error calsync throws on purpose. A code is stable: reports
 * (`failure.code`), job results and scripts match on it, never on the message. Each entry says
 * what the code means; the error's message says what to do about it. Codes are grouped by the
 * area that raises them; a code may be raised by more than one class when the user's remedy is
 * the same (`file-not-allowed` from a fetch and from a run).
 *
 * Not in here: codes relayed from another system (the site's WordPress `code` on `ApiError`,
 * undici's `ECONNRESET` on `NetworkError`), which belong to that system.
 */

/** A feed or file could not be fetched (src/sources/fetch/). */
const FETCH = {
  'blocked-address': 'the URL, a redirect or a DNS answer points at a non-public address',
  'too-large': 'the body (after decompression) is over the byte cap',
  timeout: 'connect, headers, body inactivity or the total deadline ran out',
  'too-many-redirects': 'the redirect chain is longer than allowed',
  'http-status': 'the server answered with a non-2xx/304 status',
  'bad-url': 'the URL does not parse',
  'unsupported-scheme': 'the URL is neither http(s) nor an allowed file',
  network: 'DNS failure, refused or dropped connection, TLS, corrupt compressed body',
  'file-not-allowed': 'a local path where only URLs are accepted (queued jobs, no allowFiles)',
  'file-error': 'the local file could not be read',
} as const;

/** Raised inside the fetcher's body readers and mapped to a FETCH code before it leaves (src/sources/fetch/). */
const FETCH_INTERNAL = {
  'encoding-unsupported': 'the server used a Content-Encoding calsync does not decode (reported as `network`)',
} as const;

/** Whole-file refusals of an ICS feed (src/sources/ics/). */
const ICS = {
  'ics-not-a-calendar': 'the bytes are not an iCalendar file at all (empty, HTML, binary, no BEGIN:VCALENDAR)',
  'ics-too-many-occurrences': 'the file produces more occurrences/drafts (or VEVENTs) than the per-file cap',
  'ics-memory-limit': "parsing needed more memory than the parser's heap limit",
  'ics-time-limit': 'parsing took longer than its time limit',
  'ics-parser-crashed': 'the isolated parser died for another reason (its message is kept)',
} as const;

/** Whole-file refusals of a CSV file (src/sources/csv/). */
const CSV = {
  'csv-refused': 'the CSV file cannot be imported as it is (headers, dates, encoding); the message names the option that helps',
  'csv-encoding-unknown': 'the encoding named for the CSV file is not one calsync knows',
} as const;

/** The preflight check of a site refused it before any item was read (src/api/preflight). */
const PREFLIGHT = {
  'preflight-unreachable': 'nothing answers at the REST root',
  'preflight-not-a-rest-root': 'the URL answers, but not as a WordPress REST root',
  'preflight-namespace-missing': 'the REST root has no The Events Calendar namespace',
  'preflight-credentials-rejected': 'the site refused the credentials',
  'preflight-no-credentials': 'writing needs credentials and none were given',
  'preflight-not-allowed': 'the credentials may not write events',
} as const;

/** The REST client refused a call or its answer (src/api/errors/). */
const API = {
  'site-down': 'the circuit breaker opened: the site failed too many requests in a row',
  'slug-mismatch': 'a create came back with another slug than the one sent',
  'request-invalid': 'a body, query or identifier was refused before anything was sent',
  'response-format': 'the site answered 2xx with a body that is not what the route returns',
} as const;

/** A run failed as a whole (src/runs/, jobs/). */
const RUN = {
  'fetch-failed': 'the source could not be read',
  aborted: 'the run was cancelled',
  'uid-churn': "every UID of the feed changed since the last run (importing would duplicate its events)",
  'source-overlap': "the feed's events were already imported under another source key (importing would duplicate them)",
  'sync-language-failed': 'one or more languages of a site-to-site sync failed',
  'sync-plan-failed': "reading a language of a site-to-site sync's source failed every attempt (nothing was retired)",
  'sync-no-languages': 'a site-to-site sync was given no language to copy',
  'sync-same-site': "a site-to-site sync's source and target are the same site (it would copy every event into its own site)",
  'mass-retire-refused': 'retiring would remove more than the allowed share of the events',
  'run-locked': 'another run of the same source is writing; this one comes back later',
} as const;

/** A queued job that cannot run, now or ever (src/queue/, jobs/). */
const JOB = {
  'job-kind-unknown': 'no worker job kind of that name',
  'job-payload-invalid': 'the queued payload does not pass the job kind’s schema',
  'run-state-missing': 'a part of a planned run kept in Redis (a plan, page or finish job) is gone',
  'csv-chunk-missing': 'a chunk of a CSV import kept in Redis is gone (retried like any failure)',
  'run-state-invalid': 'a part of a planned run read back from Redis is not what the planner stored',
} as const;

/** An ICS export was refused or failed (src/export/). */
const EXPORT = {
  'export-params-invalid': 'the export parameters are unusable',
  'export-aborted': 'the export was aborted; no artifact was replaced',
  'export-fetch-failed': "reading one language's window from the site failed",
  'export-artifact-write-failed': 'writing an artifact failed; the previous file is untouched',
  'export-event-invalid': 'one event cannot be rendered; it is left out of the feed',
} as const;

/** Setup and the command line: config, sites, ports, Redis, serve (src/config/, src/cli/, src/queue/, src/serve/). */
const SETUP = {
  'config-invalid': 'the config file does not parse or does not pass its schema',
  'unknown-site': 'a site name that is neither in the config nor a URL',
  'site-language': "a run's language is not one the config declares for its site",
  'missing-secret': "a credential's environment variable (a site's, the dashboard's) is not set",
  'inline-credentials': 'a site URL carries user:password@ instead of naming an environment variable',
  'config-entry-unknown': 'a source, export or sync name that the config does not declare',
  'date-spec-invalid': 'a date or window that is neither YYYY-MM-DD nor a relative offset, or ends before it starts',
  'bad-options': 'command-line options do not pass their schema',
  'port-in-use': 'the port to listen on is taken',
  'redis-unavailable': 'no Redis to use and none could be started',
  'serve-unsafe-bind': 'serving the dashboard beyond loopback without a password',
  'demo-stopped': 'the demo was stopped by a signal before it was ready',
} as const;

export const ERROR_CODES = { ...FETCH, ...FETCH_INTERNAL, ...ICS, ...CSV, ...PREFLIGHT, ...API, ...RUN, ...JOB, ...EXPORT, ...SETUP } as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type FetchErrorCode = keyof typeof FETCH;
export type IcsErrorCode = keyof typeof ICS;
export type ExportErrorCode = keyof typeof EXPORT;
export type PreflightCode = keyof typeof PREFLIGHT;

const codes = (o: object) => Object.keys(o) as [ErrorCode, ...ErrorCode[]];

/** The registry as a schema: parses a code read back from outside (a job result, a report). */
export const ErrorCodeSchema = z.enum(codes(ERROR_CODES));

/**
 * Codes that end a queued job at once: a retry would meet the same feed, payload or cancel.
 * The worker fails such a job without spending its remaining attempts.
 */
export const UnrecoverableCode = ErrorCodeSchema.extract([
  // What only a person can fix: the password, the user's role. (A site that does not answer, or
  // answers without its REST root or namespace, may be restarting or updating: retried.)
  'preflight-credentials-rejected',
  'preflight-no-credentials',
  'preflight-not-allowed',
  'uid-churn',
  'source-overlap',
  'aborted',
  'ics-too-many-occurrences',
  'ics-memory-limit',
  'ics-time-limit',
  'job-kind-unknown',
  'job-payload-invalid',
  // The worker's config is read once, at its start: a retry meets the same config.
  'config-entry-unknown',
  'sync-same-site',
  // The language's planner already failed every attempt; its job is not run again.
  'sync-plan-failed',
  'run-state-missing',
  'run-state-invalid',
]);
export type UnrecoverableCode = z.infer<typeof UnrecoverableCode>;

export function isUnrecoverableCode(code: string): code is UnrecoverableCode {
  return UnrecoverableCode.safeParse(code).success;
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}
