import net from 'node:net';
import { Agent, request } from 'undici';
import { guardedConnector } from './connector.ts';
import type { Deadline } from './deadline.ts';
import { ACCEPT_ENCODING, readCapped } from './decode.ts';
import { AddressBlocked } from './errors.ts';
import { blockedError, statusError, tooLargeError, transportError } from './failures.ts';
import { blockedReason, effectivePort, isHostAllowed, stripBrackets, type AddressPolicy } from './guard.ts';
import { redactUrl, splitCredentials } from './location.ts';
import type { ResolvedOptions } from './options.ts';
import { isRedirect, redirectTarget, sameOrigin } from './redirects.ts';
import type { FetchResult } from './result.ts';

/** Feeds are calendars and spreadsheets; say so, but take whatever the server has. */
const ACCEPT = 'text/calendar, text/csv;q=0.9, text/plain;q=0.8, */*;q=0.5';

/**
 * GET an http(s) feed: guarded connector, manual redirects, conditional request, capped and
 * self-decoded body.
 *
 * Each fetch gets its own Agent. The address policy (allow list, resolver, connect timeout)
 * lives in the connector, i.e. per Agent, and feeds are polled minutes apart, so a shared pool
 * would buy no reused connections while letting one source's allow list leak into another's.
 */
export async function fetchHttp(start: URL, o: ResolvedOptions, deadline: Deadline): Promise<FetchResult> {
  const agent = new Agent({
    connect: guardedConnector({ policy: o.policy, connectTimeoutMs: o.connectMs, ...(o.lookup ? { lookup: o.lookup } : {}) }),
    headersTimeout: o.headersMs,
    bodyTimeout: o.bodyMs,
  });
  const first = splitCredentials(start);
  const requested = redactUrl(first.url);
  let current = first.url;
  let authorization = first.authorization;
  try {
    for (let followed = 0; ; followed++) {
      refuseLiteral(current, o.policy);
      const res = await request(current, {
        dispatcher: agent,
        method: 'GET',
        headers: requestHeaders(o, authorization),
        signal: deadline.signal,
      });
      const header = (name: string) => first1(res.headers[name]);
      const location = header('location');

      if (isRedirect(res.statusCode, location)) {
        discard(res.body);
        const next = splitCredentials(redirectTarget(current, location, followed, o.maxRedirects));
        authorization = next.authorization ?? (sameOrigin(current, next.url) ? authorization : undefined);
        current = next.url;
        continue;
      }

      const base = { url: requested, finalUrl: redactUrl(current), status: res.statusCode };
      if (res.statusCode === 304) {
        discard(res.body);
        // A 304 may omit validators; the ones we sent are still the current ones.
        return withValidators(
          { ...base, notModified: true, bytes: 0 },
          header('etag') ?? o.conditional.etag,
          header('last-modified') ?? o.conditional.lastModified,
          header('content-type'),
        );
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        discard(res.body);
        throw statusError(base.finalUrl, res.statusCode, header('retry-after'));
      }

      // Refuse before reading a byte when the server already admits the body is too big.
      const declared = Number(header('content-length'));
      if (header('content-length') !== undefined && Number.isFinite(declared) && declared > o.maxBytes) {
        discard(res.body);
        throw tooLargeError(base.finalUrl, o.maxBytes, 'declared');
      }
      const body = await readCapped(res.body, header('content-encoding'), o.maxBytes);
      return withValidators(
        { ...base, notModified: false, body, bytes: body.length },
        header('etag'),
        header('last-modified'),
        header('content-type'),
      );
    }
  } catch (err) {
    const url = redactUrl(current);
    const aborted = deadline.explain(err, url);
    if (aborted !== undefined) throw aborted;
    throw transportError(err, url, o);
  } finally {
    // Closes every socket this fetch opened, including a body we stopped reading mid-stream.
    await agent.destroy().catch(() => {});
  }
}

/**
 * Refuse a literal-IP URL before handing it to undici. The connector would refuse it too; doing
 * it here as well means no dispatch at all and the same message whichever layer catches it.
 */
function refuseLiteral(url: URL, policy: AddressPolicy): void {
  const host = stripBrackets(url.hostname);
  if (!net.isIP(host) || isHostAllowed(host, effectivePort(url.port, url.protocol), policy)) return;
  const reason = blockedReason(host);
  if (reason !== undefined) throw blockedError(redactUrl(url), new AddressBlocked(host, host, reason));
}

function requestHeaders(o: ResolvedOptions, authorization: string | undefined): Record<string, string> {
  const h: Record<string, string> = {
    'user-agent': o.userAgent,
    accept: ACCEPT,
    'accept-encoding': ACCEPT_ENCODING,
  };
  if (o.conditional.etag) h['if-none-match'] = o.conditional.etag;
  if (o.conditional.lastModified) h['if-modified-since'] = o.conditional.lastModified;
  if (authorization) h.authorization = authorization;
  return h;
}

function withValidators(
  result: FetchResult,
  etag: string | undefined,
  lastModified: string | undefined,
  contentType: string | undefined,
): FetchResult {
  if (etag !== undefined) result.etag = etag;
  if (lastModified !== undefined) result.lastModified = lastModified;
  if (contentType !== undefined) result.contentType = contentType;
  return result;
}

/**
 * Drop a body we will not read. Destroying is cheaper than draining a body of unknown size (the
 * Agent is thrown away at the end anyway); undici then emits an AbortError on the body, which
 * nobody else listens for, so it is swallowed here rather than crashing the process.
 */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

function first1(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
