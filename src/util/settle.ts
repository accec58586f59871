/**
 * Awaits every promise, then gives their values, or throws the first rejection in their order
 * (not in time): work started side by side fails with the same error whichever answered first.
 */
export async function allInOrder<T extends readonly unknown[]>(promises: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(promises);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as never;
}
