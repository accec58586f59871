/**
 * A function of one string, remembered. Spreadsheet cells repeat (a file's zones, times and dates,
 * venue and organizer names): reading each distinct value once is cheaper than once per row.
 * Bounded: cleared when it holds `max` entries, and a string longer than `maxChars` is never kept,
 * so memory stays flat whatever the file. Results are shared between callers: never mutate one.
 */
export function memoized<T>(fn: (s: string) => T, max = 1024, maxChars = 200): (s: string) => T {
  const cache = new Map<string, T>();
  return (s) => {
    if (s.length > maxChars) return fn(s);
    let out = cache.get(s);
    if (out === undefined && !cache.has(s)) {
      out = fn(s);
      if (cache.size >= max) cache.clear();
      cache.set(s, out);
    }
    return out as T;
  };
}
