/**
 * Whether any string in a JSON-like value holds a backslash, walked without copying or allocating:
 * most bodies hold none, and both the client (src/api/wp-slash.ts) and the sandbox
 * (src/sandbox/slashes.ts) then use a body as it is instead of rebuilding it.
 */
export function hasBackslash(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\\');
  if (Array.isArray(value)) {
    for (const v of value) if (hasBackslash(v)) return true;
  } else if (value && typeof value === 'object') {
    for (const k in value) if (hasBackslash((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}
