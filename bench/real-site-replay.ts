/**
 * The references bench/real-site.ts compares an import against, built from what calsync itself
 * sent: a loopback proxy records every request of an import (method, path, body, status,
 * answer), and a bare fetch loop replays the same event bodies against the reset site.
 *
 * - `recordingProxy`: forwards to the site unchanged and keeps each exchange. Every phase of
 *   bench/real-site.ts (the import and both bare loops) goes through it, so each pays the same
 *   loopback hop, and the import's recording is the one replayed.
 * - `prepareReplay`: from a recording, the linked records the import created (terms, and the
 *   venues/organizers created on their own or inline inside an event create, read back from the
 *   answers) and the event creates, with every venue/organizer/term reference as an old site id.
 * - `replayLinked` / `replayEvents`: create those linked records with bare POSTs (old id → new
 *   id), then POST the event bodies with the new ids, `concurrency` at a time.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mapConcurrent } from '../src/util/pool.ts';

export interface Exchange {
  method: string;
  /** Path and query as sent (`/wp-json/tribe/events/v1/events?…`). */
  path: string;
  body?: unknown;
  status: number;
  answer: unknown;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A loopback HTTP proxy to `origin` that records every exchange. */
export async function recordingProxy(origin: string): Promise<{ url: string; exchanges: Exchange[]; close(): Promise<void> }> {
  const exchanges: Exchange[] = [];
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readAll(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
    const r = await fetch(origin + req.url, { method: req.method, headers, body: body.length ? body : undefined });
    const text = await r.text();
    exchanges.push({ method: req.method ?? 'GET', path: req.url ?? '', body: body.length ? jsonOrUndefined(body.toString('utf8')) : undefined, status: r.status, answer: jsonOrUndefined(text) });
    const out: Record<string, string> = {};
    r.headers.forEach((v, k) => {
      if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
    });
    res.writeHead(r.status, out).end(text);
  };
  const server = createServer((req, res) => {
    forward(req, res).catch((err: Error) => res.writeHead(502).end(err.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, exchanges, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Json = Record<string, unknown>;
type LinkedKind = 'venues' | 'organizers' | 'categories' | 'tags';

/** A linked record to create before the events: its old id and its create body. */
interface LinkedCreate {
  kind: LinkedKind;
  oldId: number;
  body: Json;
}

export interface ReplayPlan {
  linked: LinkedCreate[];
  /** Event create bodies, old ids in place of inline venues/organizers. */
  events: Json[];
  /** Event write requests the import sent (creates, by-slug upserts and updates), for the request mix. */
  eventWrites: number;
}

const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The route under the namespace: `/events`, `/venues`, `/categories`, `/events/by-slug/x`. */
function routeOf(path: string, namespace: string): string {
  const p = path.split('?')[0]!;
  const at = p.indexOf(`/${namespace}`);
  return at < 0 ? p : p.slice(at + namespace.length + 1);
}

/** Venue/organizer create bodies from an inline create: the fields sent, with the id the answer gave. */
function inlineLinked(body: Json, answer: Json, out: LinkedCreate[]): void {
  const venue = answer.venue;
  if (isObj(body.venue) && isObj(venue) && typeof venue.id === 'number') out.push({ kind: 'venues', oldId: venue.id, body: body.venue });
  const sent = Array.isArray(body.organizer) ? body.organizer.filter(isObj) : [];
  const got = Array.isArray(answer.organizer) ? answer.organizer.filter(isObj) : [];
  for (const o of sent) {
    const match = got.find((g) => g.organizer === o.organizer);
    if (match && typeof match.id === 'number') out.push({ kind: 'organizers', oldId: match.id, body: o });
  }
}

/** Event body with old ids: inline venue/organizer fields become the ids the answer gave them. */
function eventWithIds(body: Json, answer: Json): Json {
  const out: Json = { ...body };
  if (isObj(body.venue)) out.venue = isObj(answer.venue) ? answer.venue.id : undefined;
  if (Array.isArray(body.organizer)) {
    const got = Array.isArray(answer.organizer) ? answer.organizer.filter(isObj) : [];
    out.organizer = body.organizer.map((o) => (isObj(o) ? got.find((g) => g.organizer === o.organizer)?.id : o)).filter((x) => x !== undefined);
  }
  return out;
}

/** What a recorded import created, ready to replay (see the file comment). */
export function prepareReplay(exchanges: Exchange[], namespace: string): ReplayPlan {
  const linked: LinkedCreate[] = [];
  const events: Json[] = [];
  let eventWrites = 0;
  for (const x of exchanges) {
    if (x.method !== 'POST' || x.status >= 300 || !isObj(x.body) || !isObj(x.answer)) continue;
    const route = routeOf(x.path, namespace);
    const id = x.answer.id;
    if (typeof id !== 'number') continue;
    if (route.startsWith('/events')) {
      eventWrites++;
      // Creates only (201): a follow-up update of the same event would replay as a second create.
      if (x.status !== 201) continue;
      inlineLinked(x.body, x.answer, linked);
      const bySlug = /^\/events\/by-slug\/([^/]+)$/.exec(route);
      events.push({ ...eventWithIds(x.body, x.answer), ...(bySlug ? { slug: decodeURIComponent(bySlug[1]!) } : {}) });
    } else if (route === '/venues' || route === '/organizers' || route === '/categories' || route === '/tags') {
      linked.push({ kind: route.slice(1) as LinkedKind, oldId: id, body: x.body });
    }
  }
  return { linked, events, eventWrites };
}

export interface BareSite {
  api: string;
  auth: string;
}

async function post(site: BareSite, route: string, body: unknown): Promise<Json> {
  const r = await fetch(`${site.api}${route}`, { method: 'POST', headers: { Authorization: site.auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`POST ${route}: ${r.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as Json;
}

/** Old site id → new site id, keyed by idKey. */
export type IdMap = Map<string, number>;
const idKey = (kind: LinkedKind, id: unknown): string => `${kind}:${String(id)}`;

/**
 * Creates the recorded linked records (terms first: a term's parent is another term), `concurrency`
 * at a time; old id → new id, keyed by kind.
 */
export async function replayLinked(site: BareSite, plan: ReplayPlan, concurrency: number): Promise<IdMap> {
  const ids: IdMap = new Map();
  const terms = plan.linked.filter((l) => l.kind === 'categories' || l.kind === 'tags');
  const others = plan.linked.filter((l) => l.kind === 'venues' || l.kind === 'organizers');
  for (const group of [terms, others]) {
    await mapConcurrent(group, concurrency, async (l) => {
      const body = { ...l.body };
      if (typeof body.parent === 'number' && body.parent > 0) body.parent = ids.get(idKey(l.kind, body.parent)) ?? 0;
      const rec = await post(site, `/${l.kind}`, body);
      ids.set(idKey(l.kind, l.oldId), rec.id as number);
    });
  }
  return ids;
}

/** POSTs the recorded event bodies with the new linked ids, `concurrency` at a time. */
export async function replayEvents(site: BareSite, plan: ReplayPlan, ids: IdMap, concurrency: number): Promise<void> {
  const map = (kind: LinkedKind, v: unknown) => (typeof v === 'number' ? (ids.get(idKey(kind, v)) ?? v) : v);
  const bodies = plan.events.map((e) => ({
    ...e,
    ...(e.venue !== undefined ? { venue: map('venues', e.venue) } : {}),
    ...(Array.isArray(e.organizer) ? { organizer: e.organizer.map((o) => map('organizers', o)) } : {}),
    ...(Array.isArray(e.categories) ? { categories: e.categories.map((c) => map('categories', c)) } : {}),
    ...(Array.isArray(e.tags) ? { tags: e.tags.map((c) => map('tags', c)) } : {}),
  }));
  await mapConcurrent(bodies, concurrency, (b) => post(site, '/events', b));
}
