import { writeConfig } from '../../support/worker-process.ts';
import type { RealSite } from './kit.ts';

/**
 * A calsync config naming site A (`a`, the source) and site B (`b`) with credentials by env
 * reference, as in production; `bUrl` lets a test put a counting proxy in front of B.
 */
export function realConfig(sites: { a: RealSite; b: RealSite }, opts: { bUrl?: string; aUrl?: string; feedUrl?: string } = {}): { file: string; env: Record<string, string> } {
  const file = writeConfig({
    sites: [
      { name: 'a', restRoot: opts.aUrl ?? sites.a.url, namespace: sites.a.namespace, auth: { user: sites.a.user, passwordEnv: 'REAL_A_PASSWORD' }, languages: ['en'] },
      { name: 'b', restRoot: opts.bUrl ?? sites.b.url, namespace: sites.b.namespace, auth: { user: sites.b.user, passwordEnv: 'REAL_B_PASSWORD' }, languages: ['en'] },
    ],
    // A feed on loopback, trusted explicitly (jobs never read local files). Its events are in 2030.
    sources: opts.feedUrl ? [{ name: 'festival', kind: 'ics', site: 'a', url: opts.feedUrl, allow: [new URL(opts.feedUrl).host], horizonDays: 3000 }] : [],
    syncs: [{ name: 'a-to-b', from: 'a', to: 'b', window: { from: '2030-01-01', to: '2030-12-31' }, retire: 'trash' }],
  });
  return { file, env: { REAL_A_PASSWORD: sites.a.password, REAL_B_PASSWORD: sites.b.password } };
}
