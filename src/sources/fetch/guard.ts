import ipaddr from 'ipaddr.js';
import net from 'node:net';

/**
 * The SSRF address policy: which IP addresses a feed fetch may connect to. Pure functions, no I/O;
 * the connector applies them to every address it is about to dial.
 *
 * Public means "globally routable unicast" as ipaddr.js classifies it, with two refinements:
 * NAT64 and 6to4 addresses are judged by the IPv4 address they embed (so a DNS64 network still
 * reaches public feeds but `64:ff9b::a00:1` does not reach 10.0.0.1), and IPv6 must be inside
 * 2000::/3, the only block IANA allocates for global unicast (this catches the deprecated
 * IPv4-compatible form `::127.0.0.1`, which ipaddr.js labels plain "unicast").
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * One allow-list entry: a host name or an address range, and the port it covers. An entry without
 * a port covers the default ports only (80 and 443): allowing a feed server must not open every
 * other service on that machine (its Redis, its admin port) to a redirect.
 */
export interface AllowEntry {
  /** Lower-cased host name; it matches that name as written in a URL, whatever it resolves to. */
  readonly host?: string;
  /** Address range; it matches URLs whose host IS an address in it (not names resolving into it). */
  readonly range?: [Address, number];
  /** undefined: 80 and 443. */
  readonly port?: number;
}

export interface AddressPolicy {
  readonly entries: readonly AllowEntry[];
}

const EMPTY_POLICY: AddressPolicy = { entries: [] };
export const DEFAULT_PORTS: readonly number[] = [80, 443];

/**
 * Compile an allow list of `host[:port]` entries: host names (`feeds.intranet`,
 * `feeds.intranet:8080`), addresses (`127.0.0.1`, `127.0.0.1:8080`, `::1`, `[::1]:8080`) and CIDRs
 * (`10.20.0.0/16`, `10.20.0.0/16:8080`, `[fd00::/8]:8080`). A bad entry throws, because a typo
 * here would silently block a trusted feed or, worse, be read as something broader than meant.
 */
export function compilePolicy(allow: readonly string[] = []): AddressPolicy {
  if (allow.length === 0) return EMPTY_POLICY;
  return { entries: allow.map(compileEntry) };
}

function compileEntry(raw: string): AllowEntry {
  const { host: text, port } = splitPort(raw.trim(), raw);
  const entry = stripBrackets(text);
  if (entry.includes('/')) {
    if (!ipaddr.isValidCIDR(entry)) throw new TypeError(`Invalid CIDR in allow list: ${raw}`);
    const [addr, bits] = ipaddr.parseCIDR(entry);
    return { range: unmapRange(addr, bits), port };
  }
  if (net.isIP(entry)) {
    const addr = ipaddr.process(entry);
    return { range: [addr, addr.kind() === 'ipv4' ? 32 : 128], port };
  }
  if (/^[a-z0-9.-]+$/i.test(entry) && entry.length > 0) return { host: normalizeHost(entry), port };
  throw new TypeError(`Invalid allow-list entry (expected host[:port], an IP address[:port] or a CIDR[:port]): ${raw}`);
}

/** `host:port`, `[v6]:port`, `cidr:port` → host and port; a bare IPv6 address has no port. */
function splitPort(text: string, raw: string): { host: string; port?: number } {
  const m = /^(\[[^\]]+\]|[^:]+|[^\[\]]*\/\d+):(\d+)$/.exec(text);
  if (!m) return { host: text };
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new TypeError(`Invalid port in allow-list entry: ${raw}`);
  return { host: m[1] as string, port };
}

/** The port a URL connects to (its explicit port, else the scheme's default). */
export function effectivePort(port: string | number | undefined, protocol: string): number {
  const n = Number(port);
  return Number.isInteger(n) && n > 0 ? n : protocol === 'https:' ? 443 : 80;
}

const portMatches = (e: AllowEntry, port: number) => (e.port === undefined ? DEFAULT_PORTS.includes(port) : e.port === port);

/**
 * Whether a URL's host (a name or an address literal, brackets optional) and port are on the
 * allow list. Checked for the first URL and again for every redirect hop.
 */
export function isHostAllowed(host: string, port: number, policy: AddressPolicy): boolean {
  if (policy.entries.length === 0) return false;
  const h = stripBrackets(host).replace(/%.*$/, '');
  const literal = ipaddr.isValid(h) && net.isIP(h) ? ipaddr.process(h) : undefined;
  return policy.entries.some((e) => {
    if (!portMatches(e, port)) return false;
    if (e.host !== undefined) return literal === undefined && e.host === normalizeHost(h);
    const [base, bits] = e.range as [Address, number];
    return literal !== undefined && base.kind() === literal.kind() && literal.match(base, bits);
  });
}

/**
 * Why `ip` may not be fetched from, as a phrase for a message (`a private address`), or
 * undefined when it is public or allow-listed. Anything that does not parse is refused.
 */
export function blockedReason(ip: string, policy: AddressPolicy = EMPTY_POLICY): string | undefined {
  const text = stripBrackets(ip).replace(/%.*$/, ''); // zone ids (fe80::1%eth0) do not change the range
  if (!ipaddr.isValid(text)) return 'not a valid IP address';
  const addr = ipaddr.process(text); // unwraps IPv4-mapped IPv6 (::ffff:127.0.0.1 -> 127.0.0.1)
  const inRange = (e: AllowEntry) => e.range !== undefined && e.range[0].kind() === addr.kind() && addr.match(e.range[0], e.range[1]);
  if (policy.entries.some(inRange)) return undefined;
  return classify(addr);
}

/**
 * True when `ip` is a public unicast address, or is covered by an address/CIDR entry of `allow`
 * on any port (host-name entries do not apply here: they exempt a name, not an address). The
 * fetch itself applies entries with their ports through `isHostAllowed`.
 */
export function isPublicAddress(ip: string, allow?: string[]): boolean {
  return blockedReason(ip, compilePolicy(allow)) === undefined;
}

function classify(addr: Address): string | undefined {
  if (addr.kind() === 'ipv4') {
    const range = (addr as ipaddr.IPv4).range();
    return range === 'unicast' ? undefined : describe(range);
  }
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'rfc6052' || range === '6to4') {
    const embedded = embeddedIPv4(v6, range);
    if (!embedded) return describe(range);
    const inner = classify(embedded);
    return inner === undefined ? undefined : `${describe(range)} embedding ${embedded.toString()}, ${inner}`;
  }
  if (range !== 'unicast') return describe(range);
  if ((v6.parts[0] & 0xe000) !== 0x2000) return 'outside the global unicast range (2000::/3)';
  return undefined;
}

/**
 * The IPv4 address carried in a NAT64 (64:ff9b::/96, last 32 bits) or 6to4 (2002:AABB:CCDD::/48)
 * address. The local-use NAT64 prefix 64:ff9b:1::/48 has no fixed position and stays refused.
 */
function embeddedIPv4(v6: ipaddr.IPv6, range: 'rfc6052' | '6to4'): ipaddr.IPv4 | undefined {
  const p = v6.parts;
  if (range === '6to4') return v4FromWords(p[1], p[2]);
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
    return v4FromWords(p[6], p[7]);
  }
  return undefined;
}

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

const DESCRIPTIONS: Record<string, string> = {
  private: 'a private address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address (this range includes cloud metadata endpoints such as 169.254.169.254)',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  ipv4Mapped: 'an IPv4-mapped address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo tunnel address',
  deprecatedSiteLocal: 'a site-local (private) IPv6 address',
};

function describe(range: string): string {
  return DESCRIPTIONS[range] ?? `a special-purpose address (${range})`;
}

/** An allow entry like ::ffff:10.0.0.0/104 is compared as 10.0.0.0/8, like the addresses it covers. */
function unmapRange(addr: Address, bits: number): [Address, number] {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [addr, bits];
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** DNS names are case-insensitive and `feed.example.` is `feed.example`. */
function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}
