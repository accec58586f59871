import net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { CalsyncError } from '../errors/calsync-error.ts';

/**
 * Who may reach `calsync serve` and what they may do there. The dashboard can add, retry and
 * remove jobs, and a job runs with the worker's site credentials, so:
 * - without basic auth the dashboard is read-only, and `serve` only binds loopback;
 * - every request's `Host` must name this server (the configured public URL or a loopback name),
 *   so a web page on another origin cannot reach a loopback dashboard through DNS rebinding;
 * - a state-changing request that carries an `Origin` must come from this server's own origin
 *   (browsers attach cached basic-auth credentials to cross-site form posts).
 */

export class UnsafeBindError extends CalsyncError {
  readonly code = 'serve-unsafe-bind';
  constructor(host: string) {
    super(
      `refusing to serve the dashboard on ${host} without a password: anyone who reaches it could add jobs that run with your sites' credentials. ` +
        'Set serve.basicAuth in the config (user + passwordEnv), or listen on 127.0.0.1.',
    );
    this.name = 'UnsafeBindError';
  }
}

/** serve.basicAuth names a password variable that is not set. */
export class ServePasswordMissingError extends CalsyncError {
  override name = 'ServePasswordMissingError';
  readonly code = 'missing-secret';
  constructor(variable: string) {
    super(`serve.basicAuth needs its password in ${variable}`);
  }
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return true;
  return net.isIPv4(h) && h.startsWith('127.');
}

/** Throws when binding `host` without basic auth would expose the dashboard beyond this machine. */
export function checkBind(host: string, hasAuth: boolean): void {
  if (!hasAuth && !isLoopbackHost(host)) throw new UnsafeBindError(host);
}

/** `Host` header → host name without port, lower-cased; undefined when it does not parse. */
function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return new URL(`http://${header}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return undefined;
  }
}

/** The DNS-rebinding defence: 421 unless `Host` is the public URL's host or a loopback name. */
export function hostCheck(publicUrl: string | undefined) {
  const publicHost = publicUrl ? new URL(publicUrl).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase() : undefined;
  return (req: Request, res: Response, next: NextFunction) => {
    const name = hostName(req.headers.host);
    if (name !== undefined && (isLoopbackHost(name) || name === publicHost)) return next();
    res
      .status(421)
      .type('text/plain')
      .send(`this server answers for ${publicHost ?? 'localhost'} only; set serve.publicUrl to the address users open\n`);
  };
}

export function basicAuth(cred: { user: string; password: string }) {
  const expected = Buffer.from(`Basic ${Buffer.from(`${cred.user}:${cred.password}`).toString('base64')}`);
  return (req: Request, res: Response, next: NextFunction) => {
    const got = Buffer.from(req.headers.authorization ?? '');
    if (got.length === expected.length && timingSafeEqual(got, expected)) return next();
    res.set('WWW-Authenticate', 'Basic realm="calsync"').status(401).type('text/plain').send('authentication required\n');
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Read-only without a password: only GET/HEAD reach the dashboard (Bull Board's readOnlyMode as well). */
export function readOnly() {
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method)) return next();
    res.status(403).type('text/plain').send('the dashboard is read-only: set serve.basicAuth in the config to manage jobs\n');
  };
}

/** A state-changing request with an `Origin` must come from the origin it is sent to (CSRF). */
export function sameOriginWrites() {
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (SAFE_METHODS.has(req.method) || origin === undefined) return next();
    let same = false;
    try {
      same = new URL(origin).host === req.headers.host;
    } catch {
      same = false; // `Origin: null` (sandboxed frames, file: pages) is never this server
    }
    if (same) return next();
    res.status(403).type('text/plain').send('cross-origin request refused\n');
  };
}
