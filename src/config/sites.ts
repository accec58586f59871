import { z } from 'zod';
import type { SiteConnection } from '../api/index.ts';
import { slugify } from '../model/identity.ts';
import type { Language } from '../model/languages.ts';
import type { CalsyncConfig, SiteConfig } from './schema.ts';
import { CalsyncError } from '../errors/calsync-error.ts';

/** A site the worker can talk to: its connection (with credentials) and a stable key for Redis state. */
export interface ResolvedSite {
  key: string;
  /**
   * The other keys this site's state may be kept under: the key of its REST root and namespace and
   * the config's names for that same site (a CLI trial by URL, then a config site by name). Read
   * only to find a feed another source key already imported (src/write/source-overlap.ts).
   */
  aliases?: string[];
  name: string;
  connection: SiteConnection;
  languages: Language[];
  /** The config declares `languages` for this site; a site given by URL declares none, and takes any. */
  languagesDeclared?: boolean;
  concurrency: number;
  requestsPerSecond?: number;
}

export class SiteLanguageError extends CalsyncError {
  readonly code = 'site-language';
  constructor(site: string, lang: Language, languages: Language[]) {
    super(
      `site "${site}" serves ${languages.join(', ')} (its config's "languages"), not ${lang}: a site without a multilingual plugin ignores ml_language, ` +
        `so a run in ${lang} would read and write its ${languages[0]} events as ${lang} ones. Run with --lang ${languages.join(',')}, or add "${lang}" to the site's "languages" once it serves ${lang}`,
    );
    this.name = 'SiteLanguageError';
  }
}

/**
 * Refuses a language a config site does not declare, before anything is read. The Events Calendar
 * has no languages of its own: without a multilingual plugin every language reads and writes the
 * same posts, so an import with `--lang fr` into an English site retitled its English events (a
 * real TEC site, test/regressions/undeclared-language.test.ts), and an export wrote the English
 * events into its French feed.
 */
export function assertSiteLanguage(site: ResolvedSite, lang: Language): void {
  if (site.languagesDeclared && !site.languages.includes(lang)) throw new SiteLanguageError(site.name, lang, site.languages);
}

export class UnknownSiteError extends CalsyncError {
  readonly code = 'unknown-site';
  constructor(name: string, known: string[]) {
    super(`unknown site "${name}": give a REST root URL (e.g. http://127.0.0.1:8787/wp-json) or one of the config's sites${known.length ? ` (${known.join(', ')})` : ''}`);
    this.name = 'UnknownSiteError';
  }
}

/**
 * A site as a queue payload may name it: a site declared in the config, by name. Never a URL:
 * the worker attaches credentials to the site it resolves, so whoever can add a job (Redis, the
 * dashboard) must not be able to point those credentials at a server of their choosing.
 */
export const ConfiguredSiteName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'queued jobs name a site declared in the config (sites[].name); a site URL is only accepted on the command line');

export class MissingSecretError extends CalsyncError {
  readonly code = 'missing-secret';
  constructor(site: string, variable: string) {
    super(`site "${site}" needs its credential in the environment variable ${variable}, which is not set`);
    this.name = 'MissingSecretError';
  }
}

/** A site URL given with user:password@: credentials come from the environment, never inline. */
export class InlineCredentialsError extends CalsyncError {
  override name = 'InlineCredentialsError';
  readonly code = 'inline-credentials';
  constructor() {
    super('put credentials in CALSYNC_USER/CALSYNC_PASSWORD (or CALSYNC_TOKEN), not in the site URL');
  }
}

function authFromEnv(env: NodeJS.ProcessEnv): SiteConnection['auth'] {
  if (env.CALSYNC_TOKEN) return { kind: 'bearer', token: env.CALSYNC_TOKEN, from: 'CALSYNC_TOKEN' };
  if (env.CALSYNC_USER && env.CALSYNC_PASSWORD) return { kind: 'basic', user: env.CALSYNC_USER, password: env.CALSYNC_PASSWORD, from: 'CALSYNC_USER and CALSYNC_PASSWORD' };
  return undefined;
}

export function siteKeyFor(restRoot: string, namespace: string): string {
  const u = new URL(restRoot);
  return slugify(`${u.hostname}-${u.port}${u.pathname}-${namespace}`, 120);
}

/** The keys other than `key` under which a site with this REST root and namespace may have state. */
function aliasesOf(key: string, restRoot: string, namespace: string, config?: CalsyncConfig): string[] {
  const urlKey = siteKeyFor(restRoot, namespace);
  const names = (config?.sites ?? []).filter((s) => siteKeyFor(s.restRoot.replace(/\/+$/, ''), s.namespace) === urlKey).map((s) => s.name);
  return [...new Set([urlKey, ...names])].filter((k) => k !== key);
}

/**
 * Resolves `--site` (a config site name or a REST root URL). Credentials come from the config's
 * env references or CALSYNC_USER/CALSYNC_PASSWORD/CALSYNC_TOKEN — never from a flag or a job payload.
 */
export function resolveSite(nameOrUrl: string, config?: CalsyncConfig, opts: { namespace?: string; env?: NodeJS.ProcessEnv; flags?: SiteConnection['flags'] } = {}): ResolvedSite {
  const env = opts.env ?? process.env;
  const fromConfig = config?.sites.find((s) => s.name === nameOrUrl);
  if (fromConfig) {
    const site = fromSiteConfig(fromConfig, env, opts.namespace);
    return { ...site, aliases: aliasesOf(site.key, site.connection.restRoot, opts.namespace ?? fromConfig.namespace, config) };
  }
  if (!/^https?:\/\//.test(nameOrUrl)) throw new UnknownSiteError(nameOrUrl, config?.sites.map((s) => s.name) ?? []);
  const url = new URL(nameOrUrl);
  if (url.username || url.password) throw new InlineCredentialsError();
  const namespace = opts.namespace ?? 'calendar/events/v1';
  const restRoot = nameOrUrl.replace(/\/+$/, '');
  const key = siteKeyFor(restRoot, namespace);
  return {
    key,
    aliases: aliasesOf(key, restRoot, namespace, config),
    name: url.host,
    connection: { restRoot, namespace, auth: authFromEnv(env), ...(opts.flags ? { flags: opts.flags } : {}) },
    languages: ['en'],
    concurrency: 8,
  };
}

function fromSiteConfig(s: SiteConfig, env: NodeJS.ProcessEnv, namespace?: string): ResolvedSite {
  let auth: SiteConnection['auth'];
  if (s.auth && 'passwordEnv' in s.auth) {
    const password = env[s.auth.passwordEnv];
    if (!password) throw new MissingSecretError(s.name, s.auth.passwordEnv);
    auth = { kind: 'basic', user: s.auth.user, password, from: `the config's site "${s.name}": its auth.user ("${s.auth.user}") and the application password in $${s.auth.passwordEnv}` };
  } else if (s.auth && 'tokenEnv' in s.auth) {
    const token = env[s.auth.tokenEnv];
    if (!token) throw new MissingSecretError(s.name, s.auth.tokenEnv);
    auth = { kind: 'bearer', token, from: `the config's site "${s.name}": the token in $${s.auth.tokenEnv}` };
  } else {
    auth = authFromEnv(env);
  }
  return {
    key: s.name,
    name: s.name,
    connection: { restRoot: s.restRoot.replace(/\/+$/, ''), namespace: namespace ?? s.namespace, auth, connections: s.concurrency, configName: s.name },
    languages: s.languages,
    languagesDeclared: true,
    concurrency: s.concurrency,
    requestsPerSecond: s.requestsPerSecond,
  };
}
