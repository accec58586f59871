import type { VenueDraft } from '../../model/draft.ts';
import { collapseSpaces } from './text.ts';

/**
 * LOCATION (+ GEO, + Apple's X-APPLE-STRUCTURED-LOCATION) -> venue draft.
 *
 * Splitting rule, kept deliberately simple and predictable:
 * - `Name (street, city zip)` -> venue `Name`, address the part in parentheses;
 * - `Name, street, city zip` (commas or line breaks) -> venue `Name`, address the rest;
 * - a first part starting with a house number (`17 Commerce Crescent, Eastgate`) is an address, not a
 *   name: the whole text is both venue and address;
 * - a single part -> venue only.
 * A location that is only a URL (online meetings) is not a venue; the caller may use it as the website.
 * Identity is the location text lower-cased with whitespace collapsed, so the same place written the same
 * way is one venue across events and runs.
 */
export interface Geo {
  lat: number;
  lng: number;
}

export interface AppleLocation {
  title?: string;
  address?: string;
  geo?: Geo;
}

export function parseGeo(value: string | undefined): Geo | undefined {
  if (!value) return undefined;
  const parts = value.replace(/\\/g, '').split(/[;,]/).map((s) => s.trim());
  if (parts.length !== 2 || !parts.every((s) => /^[+-]?\d+(?:\.\d+)?$/.test(s))) return undefined;
  const lat = Number(parts[0]);
  const lng = Number(parts[1]);
  if (!(lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180)) return undefined;
  return { lat, lng };
}

export function isUrlOnly(text: string): boolean {
  return /^(?:https?:\/\/|www\.)\S+$/i.test(text.trim());
}

const clean = collapseSpaces;

export function venueFromLocation(location: string | undefined, geo?: Geo, apple?: AppleLocation): VenueDraft | undefined {
  const text = clean((location ?? '').replace(/\n/g, ', ').replace(/,(\s*,)+/g, ','));
  const title = apple?.title ? clean(apple.title) : '';
  const g = geo ?? apple?.geo;
  let venue: string;
  let address: string | undefined;
  if (!text || isUrlOnly(text)) {
    if (!title) return undefined;
    venue = title;
    address = apple?.address ? clean(apple.address.replace(/\n/g, ', ')) : undefined;
  } else {
    const paren = /^(.+?)\s*\(([^()]*[\d,][^()]*)\)$/.exec(text);
    const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
    if (title && text.toLowerCase().startsWith(title.toLowerCase())) {
      venue = title;
      address = clean(text.slice(title.length).replace(/^[\s,]+/, '')) || undefined;
    } else if (paren) {
      venue = paren[1];
      address = paren[2].trim();
    } else if (parts.length >= 2 && /^\d/.test(parts[0])) {
      venue = parts.join(', ');
      address = venue;
    } else if (parts.length >= 2) {
      venue = parts[0];
      address = parts.slice(1).join(', ');
    } else venue = parts[0] ?? text;
  }
  const identitySource = text && !isUrlOnly(text) ? (location ?? '') : title;
  const identity = clean(identitySource).toLowerCase();
  if (!identity || !venue) return undefined;
  const v: VenueDraft = { identity, venue };
  if (address) v.address = address;
  if (g) v.geo = g;
  return v;
}
