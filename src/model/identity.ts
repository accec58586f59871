import { hash } from 'node:crypto';
import { pathWithoutSecrets } from '../util/redact.ts';

const MAX_SLUG = 200;

/** WordPress slug rules: lowercase ASCII letters, digits and dashes, at most 200 characters. */
export function slugify(text: string, max = 60): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return s;
}

export function shortHash(value: string, length = 12): string {
  return hash('sha256', value, 'hex').slice(0, length);
}

// One source key per run, thousands of slugs: slugify it once.
const prefixes = new Map<string, string>();
function slugPrefix(sourceKey: string): string {
  let p = prefixes.get(sourceKey);
  if (p === undefined) {
    if (prefixes.size > 1000) prefixes.clear();
    prefixes.set(sourceKey, (p = slugify(sourceKey, 80) || 'calsync'));
  }
  return p;
}

/**
 * The site slug of an item: `<source-key>-<hash12 of identity>`. Identity, never content, so a
 * retitled event keeps its slug and the same identity gives the same slug on every worker.
 */
export function slugFor(sourceKey: string, identity: string): string {
  const prefix = slugPrefix(sourceKey);
  return `${prefix}-${shortHash(`${sourceKey}\u0000${identity}`)}`.slice(0, MAX_SLUG);
}

/**
 * What a default source key is made of: host + path stem of a URL, else the file name, without its
 * extension. A secret path piece of a private feed (src/util/redact.ts decides which) is replaced by
 * a short hash of it: no character of the token reaches the key, and two feeds differing only in
 * their token keep two keys.
 */
function sourceBase(location: string): string {
  let base = location;
  try {
    const u = new URL(location);
    if (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'webcal:') {
      base = `${u.hostname}${pathWithoutSecrets(u.pathname, (secret) => `k${shortHash(secret, 6)}`)}`;
    }
  } catch {
    base = location.split(/[\\/]/).pop() ?? location;
  }
  return base.replace(/\.(ics|ical|ifb|csv|txt)$/i, '');
}

/** The longest a default source key is; a longer base is cut and keeps a hash of the whole. */
const MAX_KEY = 40;
const CUT_HASH = 6;

/**
 * A source key from a URL or file name (`--source` default): the base slugified. The key is in every
 * event slug on the site and in the run history and ledger, so it is at most 40 characters; a base
 * longer than that keeps its first 33 and 6 hex digits of a hash of the whole base, so two locations
 * sharing their first 40 characters (every Google Calendar feed starts with 34 of the same) never
 * share a key. Keys of 40 characters or fewer are as they always were.
 */
export function sourceKeyFrom(location: string): string {
  const base = sourceBase(location);
  const whole = slugify(base, Number.MAX_SAFE_INTEGER);
  if (whole.length <= MAX_KEY) return whole || 'source';
  return `${slugify(whole, MAX_KEY - CUT_HASH - 1)}-${shortHash(base, CUT_HASH)}`;
}

/**
 * The key earlier versions derived: the base cut at 40 characters, hash-less, so long locations
 * with the same start shared it. Only for finding the state they wrote (src/runs/source-key.ts).
 */
export function legacySourceKeyFrom(location: string): string {
  return slugify(sourceBase(location), MAX_KEY) || 'source';
}
