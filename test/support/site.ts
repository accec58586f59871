import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.ts';
import { CalendarClient } from '../../src/api/index.ts';
import { resolveSite, type ResolvedSite } from '../../src/config/sites.ts';

export const USER = 'admin';
export const PASSWORD = 'test-password-123';

/** A sandbox site on a free port with known credentials, plus a resolved site and a client for it. */
export async function testSite(opts: SandboxOptions = {}): Promise<{ sandbox: Sandbox; site: ResolvedSite; client: CalendarClient; close(): Promise<void> }> {
  const sandbox = await startSandbox({ port: 0, user: USER, password: PASSWORD, ...opts });
  const site = resolveSite(sandbox.url, undefined, { env: { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD } });
  const client = new CalendarClient(site.connection);
  return {
    sandbox,
    site,
    client,
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}

/**
 * A feed server on loopback whose body a test can change between runs (no validators: always 200),
 * answering each request after `delayMs` when given; `fetches()` counts the requests it received.
 */
export async function feedServer(initial: string, opts: { delayMs?: number } = {}): Promise<{ url: string; set(body: string): void; fetches(): number; close(): Promise<void> }> {
  let body = initial;
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    const answer = () => res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' }).end(body);
    if (opts.delayMs === undefined) answer();
    else setTimeout(answer, opts.delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/feed.ics`,
    set: (b) => void (body = b),
    fetches: () => fetches,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** Third-party real-world files kept in the repository under their own licences (see its README.md). */
export const CORPUS_ROOT = new URL('../fixtures/third-party/corpus/', import.meta.url);

export function corpus(kind: 'ics' | 'csv', file = ''): string {
  return new URL(`${kind}/${file}`, CORPUS_ROOT).pathname;
}
