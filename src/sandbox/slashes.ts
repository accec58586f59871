import { hasBackslash } from '../util/backslash.ts';

/**
 * WordPress's `wp_unslash` (PHP `stripslashes`, applied to arrays recursively) as The Events Calendar's
 * v1 routes apply it to what they store for an event, venue or organizer (`wp_insert_post` and the
 * meta writes unslash their input): `a\b` is stored as `ab`, `a\\b` as `a\b`, `\0` as a NUL character.
 * The category and tag routes keep backslashes as sent. Measured on TEC 6.17.1 and 6.17.2
 * (test/contract/backslashes.test.ts).
 */
export function unslash(value: unknown): unknown {
  // Most bodies hold no backslash: they are used as parsed, not copied (every write of the bench's
  // import goes through here, and the sandbox's CPU paces it).
  return hasBackslash(value) ? unslashAll(value) : value;
}

function unslashAll(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\\') ? stripslashes(value) : value;
  if (Array.isArray(value)) return value.map(unslashAll);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unslashAll(v)]));
  return value;
}

function stripslashes(s: string): string {
  return s.replace(/\\(.?)/gs, (_m, c: string) => (c === '0' ? '\0' : c));
}

/** Routes whose writes the site unslashes: the post types (events, venues, organizers), not the terms. */
export function unslashesBody(template: string): boolean {
  return /^\/(?:events|venues|organizers)(?:\/|$)/.test(template);
}
