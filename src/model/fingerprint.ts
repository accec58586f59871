import { createHash } from 'node:crypto';

/** JSON with keys sorted at every level, so equal values always serialize the same. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

/** Fingerprint of a full write body (term ids resolved): equal fingerprints mean no write is needed. */
export function fingerprint(body: unknown): string {
  return createHash('sha256').update(stableStringify(body)).digest('hex').slice(0, 32);
}
