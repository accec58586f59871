import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { ReportJson } from '../../../src/report/report.ts';
import { redisUrl, testPrefix } from '../../support/redis.ts';
import { runCli, type CliResult } from '../../support/cli.ts';
import type { RealSite } from './kit.ts';


export type { CliResult } from '../../support/cli.ts';

/** Runs `calsync …` as a user does, with the time real sites need. */
export const cli = (args: string[], env: Record<string, string> = {}, timeoutMs = 240_000): Promise<CliResult> => runCli(args, env, timeoutMs);

/** Parses `--json` output, with the process's stderr in the error when it is not a report. */
export function report(r: CliResult): ReportJson {
  try {
    return JSON.parse(r.stdout) as ReportJson;
  } catch {
    throw new Error(`no JSON report (exit ${r.code}):\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(-3000)}`);
  }
}

export function credentials(site: RealSite): Record<string, string> {
  return { CALSYNC_USER: site.user, CALSYNC_PASSWORD: site.password };
}

/** Global options for one describe: the run's Redis and a fresh prefix (a reset site gets a fresh ledger). */
export function globals(prefix = testPrefix()): string[] {
  return ['--redis', redisUrl(), '--prefix', prefix];
}

/** Every item count of a report that means "something was written". */
export function writesIn(r: ReportJson): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, c] of Object.entries(r.counts)) out[kind] = c.created + c.updated + c.retired + c.failed;
  return out;
}

export const NO_WRITES = { events: 0, venues: 0, organizers: 0, categories: 0, tags: 0 };

/**
 * A loopback proxy in front of a real site that counts the requests it forwards, by method and
 * route, so a test can state "the rerun sent no writes" from the wire rather than from calsync's
 * own report. GETs that follow absolute links (next_rest_url) may bypass it; writes never do.
 */
export class CountingProxy {
  private server?: Server;
  readonly seen: string[] = [];
  private readonly target: string;
  constructor(target: string) {
    this.target = target;
  }

  async start(): Promise<string> {
    const origin = new URL(this.target).origin;
    const basePath = new URL(this.target).pathname.replace(/\/$/, '');
    this.server = createServer(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const url = req.url ?? '/';
      this.seen.push(`${req.method} ${url.split('?')[0]}`);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
      try {
        const upstream = await fetch(origin + basePath + url.slice(basePath.length), { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined, redirect: 'manual' });
        const body = Buffer.from(await upstream.arrayBuffer());
        const out: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
        });
        res.writeHead(upstream.status, out).end(body);
      } catch (err) {
        res.writeHead(502).end(String(err));
      }
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}${basePath}`;
  }

  writes(): string[] {
    return this.seen.filter((s) => !s.startsWith('GET ') && !s.startsWith('HEAD '));
  }

  clear(): void {
    this.seen.length = 0;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** Serves one mutable ICS body on loopback, as a feed server would (ETag/Last-Modified omitted on purpose: a full fetch every run). */
export class FeedServer {
  private server?: Server;
  body = '';
  requests = 0;

  async start(): Promise<string> {
    this.server = createServer((_req, res) => {
      this.requests++;
      res.writeHead(200, { 'Content-Type': 'text/calendar; charset=utf-8' }).end(this.body);
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}/feed.ics`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
