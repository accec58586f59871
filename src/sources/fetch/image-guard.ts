import dns from 'node:dns';
import net from 'node:net';
import type { LookupAddress, LookupFn } from './connector.ts';
import { blockedReason, compilePolicy, isHostAllowed, stripBrackets, type AddressPolicy } from './guard.ts';

/**
 * Image URLs calsync forwards to a site are fetched by the SITE, server-side (TEC sideloads the
 * featured image): a feed that names `http://169.254.169.254/...` or `http://10.0.0.5/admin`
 * would make the site request it. Before a URL is forwarded it passes the feed address policy
 * (src/sources/fetch/guard.ts): its host, or every address its name resolves to, must be public
 * or on the allow list. The site resolves the name again on its own, so this cannot stop DNS
 * rebinding aimed at the site; it stops every address and name that points inward today.
 */

export interface ImageGuardOptions {
  /** The feed allow list of the run (host names, addresses, CIDRs), as for the feed itself. */
  allow?: readonly string[];
  /**
   * Origins (scheme, host and port) trusted by configuration: a sync's source site serves its own
   * media. The origin, not the host: a source site trusted for its media is not thereby trusted to
   * point the target at every other port of its host (its Redis, its admin services).
   */
  trustedOrigins?: readonly string[];
  /** Injectable resolver (tests); defaults to the system's. */
  lookup?: LookupFn;
  /** How long one name may take to resolve. @defaultValue 5000 */
  lookupTimeoutMs?: number;
}

/** Characters WHATWG URL parsing rewrites or drops where PHP's parse_url keeps them (see ImageGuard.problem). */
const AMBIGUOUS = /[\\\u0000-\u001f\u007f]/;

const systemLookup: LookupFn = (hostname, options, cb) => dns.lookup(hostname, options, cb);

export class ImageGuard {
  private readonly policy: AddressPolicy;
  private readonly trusted: Set<string>;
  private readonly lookup: LookupFn;
  private readonly timeoutMs: number;
  /** One resolution per host per run: a feed repeats the same image host thousands of times. */
  private readonly byHost = new Map<string, Promise<string | undefined>>();

  constructor(opts: ImageGuardOptions = {}) {
    this.policy = compilePolicy([...(opts.allow ?? [])]);
    this.trusted = new Set((opts.trustedOrigins ?? []).map((o) => new URL(o).origin));
    this.lookup = opts.lookup ?? systemLookup;
    this.timeoutMs = opts.lookupTimeoutMs ?? 5000;
  }

  /** Why the site must not be handed this image URL, or undefined when it may. */
  async problem(url: string): Promise<string | undefined> {
    if (/^\d+$/.test(url)) return undefined; // an attachment id already on the site
    if (!URL.canParse(url)) return 'not a valid URL';
    // The site reads the URL with its own parser, not this one. WHATWG URL takes a backslash for
    // `/` and drops tabs and line breaks, PHP's parse_url (WordPress's URL checks) does neither:
    // `http://cdn.example\@169.254.169.254/x.png` is host cdn.example here and 169.254.169.254
    // there. The host checked below must be the one the site fetches, so such URLs are not sent.
    if (AMBIGUOUS.test(url)) return 'its host is read differently by other URL parsers (it holds a backslash or a control character)';
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return `the ${u.protocol} scheme is not fetched (http and https only)`;
    // WHATWG URL parsing already turned 0x7f.1, 2130706433 and friends into dotted IPv4.
    const host = stripBrackets(u.hostname).toLowerCase();
    const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
    if (this.trusted.has(u.origin) || isHostAllowed(host, port, this.policy)) return undefined;
    if (net.isIP(host)) {
      const reason = blockedReason(host, this.policy);
      return reason === undefined ? undefined : `${host} is ${reason}`;
    }
    let pending = this.byHost.get(host);
    if (!pending) this.byHost.set(host, (pending = this.checkName(host)));
    return pending;
  }

  private async checkName(host: string): Promise<string | undefined> {
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolve(host);
    } catch (err) {
      return `${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    }
    if (addresses.length === 0) return `${host} could not be resolved`;
    for (const { address } of addresses) {
      const reason = blockedReason(address, this.policy);
      if (reason !== undefined) return `${host} resolves to ${address}, ${reason}`;
    }
    return undefined;
  }

  private resolve(host: string): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' })), this.timeoutMs);
      this.lookup(host, { all: true }, (err, addresses) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(addresses ?? []);
      });
    });
  }
}
