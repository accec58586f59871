import { Pool } from 'undici';

/**
 * Keep-alive pools shared by the clients of one process that ask for it (SiteConnection.sharePool):
 * a worker builds a client per job, and a pool per client opened and closed its connections for
 * every sync page (8 connects and closes per page of 50 events, on both ends). Pools are keyed by
 * origin and options, never closed: their idle sockets are unref'd by undici and closed by its
 * keep-alive timer, so an unused pool holds nothing and keeps no process alive.
 */
const pools = new Map<string, Pool>();

export function sharedPool(origin: string, options: Pool.Options): Pool {
  const key = JSON.stringify([origin, options]);
  let pool = pools.get(key);
  if (!pool || pool.closed || pool.destroyed) pools.set(key, (pool = new Pool(origin, options)));
  return pool;
}
