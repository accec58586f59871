import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ApiError, NetworkError, NotFoundError, PreflightError, RequestValidationError, ResponseFormatError, SiteDownError, SlugMismatchError, TimeoutError } from '../../src/api/errors/index.ts';
import { ConfigError } from '../../src/config/load.ts';
import { InlineCredentialsError, MissingSecretError, SiteLanguageError, UnknownSiteError, resolveSite } from '../../src/config/sites.ts';
import { CalsyncError } from '../../src/errors/calsync-error.ts';
import { ERROR_CODES, ErrorCodeSchema, UnrecoverableCode, isErrorCode } from '../../src/errors/codes.ts';
import { ArtifactWriteError, EventRenderError, ExportAbortedError, ExportError, ExportFetchError, ExportParamsError } from '../../src/export/errors.ts';
import { StoredStateError } from '../../src/queue/stored.ts';
import { CsvChunkMissingError, JobKindUnknownError, JobPayloadError, JobStateMissingError, UnknownConfigEntryError } from '../../src/queue/job-errors.ts';
import { DateSpecError } from '../../src/config/dates.ts';
import { RedisUnavailableError } from '../../src/queue/redis-server.ts';
import { RunLockedError } from '../../src/queue/run-lock.ts';
import { RunFailedError } from '../../src/runs/context.ts';
import { SourceKeyMovedError } from '../../src/runs/source-key.ts';
import { ApiError as SandboxApiError } from '../../src/sandbox/errors.ts';
import { ServePasswordMissingError, UnsafeBindError } from '../../src/serve/guard.ts';
import { UnknownEncoding } from '../../src/sources/csv/decode.ts';
import { CsvRefusedError } from '../../src/sources/csv/errors.ts';
import { UnsupportedEncoding } from '../../src/sources/fetch/decode.ts';
import { AddressBlocked, BodyTooLarge, FetchError } from '../../src/sources/fetch/errors.ts';
import { IcsError, IcsLimitError, IcsNotCalendarError } from '../../src/sources/ics/errors.ts';
import { MassRetireRefusedError } from '../../src/write/retire.ts';
import { SyncSameSiteError } from '../../src/runs/options/sync-site.ts';
import { OptionsError } from '../../src/cli/validate.ts';
import { PortInUseError } from '../../src/cli/ports.ts';
import { DemoStoppedError } from '../../src/cli/commands/demo.ts';

/** One instance of every error class calsync throws on purpose, built as its throw sites build it. */
const PURPOSEFUL: Record<string, () => Error> = {
  ConfigError: () => new ConfigError('calsync.yaml', ['sites[0].restRoot: bad']),
  UnknownSiteError: () => new UnknownSiteError('x', ['a']),
  SiteLanguageError: () => new SiteLanguageError('x', 'fr', ['en']),
  MissingSecretError: () => new MissingSecretError('a', 'A_PW'),
  PreflightError: () => new PreflightError('unreachable', 'http://x/wp-json', 'nothing answers'),
  SiteDownError: () => new SiteDownError({ failures: 5, last: 'x', origin: 'http://x' }),
  SlugMismatchError: () => new SlugMismatchError('events', 'a', 'a-2', {}),
  RequestValidationError: () => new RequestValidationError('POST', '/events', 'body', [{ path: ['x'], message: 'unknown' }]),
  ResponseFormatError: () => new ResponseFormatError({ method: 'GET', route: '/events', url: 'http://x', status: 200, problem: 'not JSON', excerpt: '<html>' }),
  ExportError: () => new ExportError('export-aborted', 'aborted'),
  ExportParamsError: () => new ExportParamsError('feed', 'bad'),
  ExportAbortedError: () => new ExportAbortedError(),
  ExportFetchError: () => new ExportFetchError('en', { cause: new Error('x') }),
  ArtifactWriteError: () => new ArtifactWriteError('/x', { cause: new Error('x') }),
  EventRenderError: () => new EventRenderError(1, 'bad date'),
  JobKindUnknownError: () => new JobKindUnknownError('x'),
  JobPayloadError: () => new JobPayloadError('import-ics', ['source: required']),
  JobStateMissingError: () => new JobStateMissingError('gone'),
  CsvChunkMissingError: () => new CsvChunkMissingError('gone'),
  StoredStateError: () => new StoredStateError('run-state-invalid', 'k', 'not what the planner stored'),
  UnknownConfigEntryError: () => new UnknownConfigEntryError('no export named "x"'),
  DateSpecError: () => new DateSpecError('"x" is not a date'),
  InlineCredentialsError: () => new InlineCredentialsError(),
  ServePasswordMissingError: () => new ServePasswordMissingError('DASH_PW'),
  RedisUnavailableError: () => new RedisUnavailableError('no redis'),
  RunLockedError: () => new RunLockedError('source a'),
  RunFailedError: () => new RunFailedError('uid-churn', 'every UID changed'),
  SourceKeyMovedError: () => new SourceKeyMovedError('https://calendar.example/long/path/feed.ics', 'calendar-example-long-path-feed'),
  UnsafeBindError: () => new UnsafeBindError('0.0.0.0'),
  UnknownEncoding: () => new UnknownEncoding('klingon'),
  CsvRefusedError: () => new CsvRefusedError('a.csv', 'no header', '--map'),
  UnsupportedEncoding: () => new UnsupportedEncoding('zstd'),
  FetchError: () => new FetchError('timeout', 'http://x', 'too slow'),
  AddressBlocked: () => new AddressBlocked('x', '10.0.0.1', 'a private address'),
  BodyTooLarge: () => new BodyTooLarge(10, 'wire'),
  IcsError: () => new IcsError('ics-time-limit', 'a.ics', 'too slow'),
  IcsNotCalendarError: () => new IcsNotCalendarError('a.ics', 'html'),
  IcsLimitError: () => new IcsLimitError('a.ics', 'occurrences', 10),
  MassRetireRefusedError: () => new MassRetireRefusedError(10, 12, 0.5),
  OptionsError: () => new OptionsError(['--lang: bad']),
  PortInUseError: () => new PortInUseError(8080, '--port'),
  DemoStoppedError: () => new DemoStoppedError(),
  SyncSameSiteError: () => new SyncSameSiteError(resolveSite('http://x/wp-json', undefined, { env: {} }), resolveSite('http://x/wp-json', undefined, { env: {} })),
};

/**
 * Errors that relay another system's code, so theirs is not in calsync's namespace: the site's
 * WordPress `code` (ApiError, NotFoundError), undici's/Node's (NetworkError, TimeoutError), and
 * the sandbox site's own WordPress-shaped error bodies.
 */
const RELAYS: Record<string, () => Error> = {
  'src/api/errors/api-error.ts:ApiError': () => new ApiError({ status: 403, code: 'rest_forbidden', method: 'GET', route: '/events', url: 'http://x' }),
  'src/api/errors/not-found-error.ts:NotFoundError': () => new NotFoundError({ status: 404, code: 'rest-event-not-found', method: 'GET', route: '/events/:id', url: 'http://x' }),
  'src/api/errors/network-error.ts:NetworkError': () => new NetworkError({ method: 'GET', route: '/events', url: 'http://x', code: 'ECONNRESET', attempts: 1 }),
  'src/api/errors/timeout-error.ts:TimeoutError': () => new TimeoutError({ method: 'GET', route: '/events', url: 'http://x', code: 'UND_ERR_HEADERS_TIMEOUT', attempts: 1, kind: 'headers', timeoutMs: 10 }),
  'src/sandbox/errors.ts:ApiError': () => new SandboxApiError(404, 'rest_no_route', 'No route'),
};

/** Every class declared in src/ and jobs/ that extends another (by the TypeScript AST), as `file:Name`. */
function declaredSubclasses(): { file: string; name: string; exported: boolean }[] {
  const files = execFileSync('git', ['ls-files', 'src/*.ts', 'jobs/*.ts'], { encoding: 'utf8' }).trim().split('\n');
  const out: { file: string; name: string; exported: boolean }[] = [];
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isClassDeclaration(n) && n.name && n.heritageClauses?.some((h) => h.token === ts.SyntaxKind.ExtendsKeyword)) {
        out.push({ file, name: n.name.text, exported: !!n.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

describe('one namespace of error codes (src/errors/codes.ts)', () => {
  it('every error class in src/ and jobs/ is either in the purposeful table or a relay of a foreign code', async () => {
    const unlisted: string[] = [];
    const classes = declaredSubclasses();
    // The scan itself works: it sees the error classes of every area, not an empty list.
    expect(classes.filter((c) => /Error$/.test(c.name)).length).toBeGreaterThan(30);
    for (const c of classes) {
      const mod = (await import(pathToFileURL(`${process.cwd()}/${c.file}`).href)) as Record<string, unknown>;
      const value = mod[c.name];
      const isError = typeof value === 'function' && value.prototype instanceof Error;
      if (!c.exported) {
        // An error class nobody can import cannot be matched on: export it and list it here.
        const source = readFileSync(c.file, 'utf8');
        if (new RegExp(`class ${c.name} extends \\w*Error\\b`).test(source)) unlisted.push(`${c.file}:${c.name} (not exported)`);
        continue;
      }
      if (!isError || value === CalsyncError) continue;
      const key = `${c.file}:${c.name}`;
      if (!(c.name in PURPOSEFUL) && !(key in RELAYS)) unlisted.push(key);
      else if (c.name in PURPOSEFUL) expect(PURPOSEFUL[c.name]?.()).toBeInstanceOf(value as new () => Error);
    }
    expect(unlisted).toEqual([]);
  });

  it.each(Object.keys(PURPOSEFUL))('%s is a CalsyncError whose code is in the registry', (name) => {
    const err = PURPOSEFUL[name]!();
    expect(err).toBeInstanceOf(CalsyncError);
    expect(isErrorCode((err as CalsyncError).code)).toBe(true);
    expect(ErrorCodeSchema.parse((err as CalsyncError).code)).toBe((err as CalsyncError).code);
  });

  it.each(Object.keys(RELAYS))('%s relays a foreign code and is not mistaken for one of calsync’s', (key) => {
    const err = RELAYS[key]!() as Error & { code: string };
    expect(err).not.toBeInstanceOf(CalsyncError);
    expect(isErrorCode(err.code)).toBe(false);
  });

  it('codes users, reports and tests match on keep their values', () => {
    // Values seen in reports (`failure.code`), job results and test/README expectations.
    for (const code of ['uid-churn', 'site-down', 'bad-options', 'preflight-unreachable', 'serve-unsafe-bind', 'too-large', 'blocked-address', 'ics-not-a-calendar', 'export-params-invalid', 'fetch-failed', 'csv-refused']) {
      expect(isErrorCode(code), code).toBe(true);
    }
    // Kebab case, and no second namespace (the old `calsync:` prefix) inside the one.
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });

  it('nothing in src/ or jobs/ throws a bare Error on purpose: only the invariant checks below do', () => {
    // Each of these "cannot happen" in a correct program; a user could not act on one anyway.
    // (TypeErrors for bad arguments, e.g. an allow-list entry, stay TypeErrors: callers and tests match on that type.)
    const INVARIANTS = ['src/model/timezones.ts', 'src/export/instant.ts', 'src/api/paging.ts', 'src/runs/group-reuse.ts'];
    const files = execFileSync('git', ['ls-files', 'src/*.ts', 'jobs/*.ts'], { encoding: 'utf8' }).trim().split('\n');
    const bare = files.filter((f) => !f.startsWith('src/sandbox/') && !INVARIANTS.includes(f) && /throw new Error\(/.test(readFileSync(f, 'utf8')));
    expect(bare).toEqual([]);
  });

  it('every unrecoverable code is a registered code', () => {
    for (const code of UnrecoverableCode.options) expect(isErrorCode(code)).toBe(true);
  });
});
