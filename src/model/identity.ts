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
 * A source key from a URL or file name: host + path stem, slugified (`--source` default). The key
 * is in every event slug on the site and in the run history, so a secret path piece of a private
 * feed (src/util/redact.ts decides which) is replaced by a short hash of it: no character of the
 * token, and two feeds differing only in their token keep two keys. Keys of URLs without one are
 * as they were.
 */
export function sourceKeyFrom(location: string): string {
  let base = location;
  try {
    const u = new URL(location);
    if (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'webcal:') {
      base = `${u.hostname}${pathWithoutSecrets(u.pathname, (secret) => `k${shortHash(secret, 6)}`)}`;
    }
  } catch {
    base = location.split(/[\\/]/).pop() ?? location;
  }
  base = base.replace(/\.(ics|ical|ifb|csv|txt)$/i, '');
  return slugify(base, 40) || 'source';
}
