/**
 * A function of one string, remembered. Spreadsheet cells repeat (a file's zones, times and dates,
 * venue and organizer names): reading each distinct value once is cheaper than once per row.
 * Bounded: cleared when it holds `max` entries, and a string longer than `maxChars` is never kept,
 * so memory stays flat whatever the file. Results are shared between callers: never mutate one.
 */
export function memoized<T>(fn: (s: string) => T, max = 1024, maxChars = 200): (s: string) => T {
  return memoizedBy((s: string) => s, fn, max, maxChars);
}

/**
 * The same for a function of any argument, remembered by `keyOf(arg)`: a string that must tell apart
 * every two arguments `fn` could answer differently for (ICS properties are read by their value and
 * the parameters the reader looks at). The bounds apply to the key.
 */
export function memoizedBy<A, T>(keyOf: (a: A) => string, fn: (a: A) => T, max = 1024, maxChars = 200): (a: A) => T {
  const cache = new Map<string, T>();
  return (a) => {
    const k = keyOf(a);
    if (k.length > maxChars) return fn(a);
    let out = cache.get(k);
    if (out === undefined && !cache.has(k)) {
      out = fn(a);
      if (cache.size >= max) cache.clear();
      cache.set(k, out);
    }
    return out as T;
  };
}
