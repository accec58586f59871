import { request } from 'undici';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.ts';

/** A fixed clock: the moment the live transcript was recorded. */
export const NOW = new Date('2026-11-22T01:44:40Z');

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface CallOptions {
  body?: unknown;
  /** send credentials (default true); a string is a raw Authorization header */
  auth?: boolean | string;
  /** x-www-form-urlencoded body instead of JSON */
  form?: Record<string, string>;
  /** REST root to use instead of the sandbox's (language segment, alias namespace) */
  root?: string;
}

export interface TestSite {
  sb: Sandbox;
  base: string;
  call(method: string, path: string, opts?: CallOptions): Promise<Answer>;
  /** creates an event and returns the response body (asserting 201) */
  event(fields: Record<string, unknown>, query?: string): Promise<any>;
}

export async function openSite(opts: SandboxOptions = {}): Promise<TestSite> {
  const sb = await startSandbox({ port: 0, user: 'admin', password: 'abcd efgh ijkl mnop qrst uvwx', now: () => NOW, ...opts });
  const base = `${sb.url}/${sb.namespace}`;
  const basic = `Basic ${Buffer.from(`${sb.user}:${sb.password}`).toString('base64')}`;
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = {};
    const auth = o.auth ?? true;
    if (auth === true) headers.authorization = basic;
    else if (typeof auth === 'string') headers.authorization = auth;
    let body: string | undefined;
    if (o.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(o.form).toString();
    } else if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
    const url = path.startsWith('http') ? path : `${o.root ?? base}${path}`;
    const res = await request(url, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (HTML error pages)
    }
    return { status: res.statusCode, headers: res.headers, body: parsed };
  };
  const event = async (fields: Record<string, unknown>, query = ''): Promise<any> => {
    const r = await call('POST', `/events${query}`, { body: { start_date: '2027-03-10 18:00:00', end_date: '2027-03-10 20:00:00', ...fields } });
    if (r.status !== 201) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  return { sb, base, call, event };
}
