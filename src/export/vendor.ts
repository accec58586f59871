import { createRequire } from 'node:module';

/**
 * Luxon and html-to-text ship no type declarations and the project has no `@types` for them.
 * Rather than declaring ambient modules (global to the whole program, and easy to collide with
 * another module's copy), they are loaded here through `require` and typed by the few members
 * the export uses.
 */

const require = createRequire(import.meta.url);

/** The part of Luxon's `DateTime` ical-generator calls (its `ICalLuxonDateTimeStub`) plus constructors. */
export interface LuxonDateTime {
  readonly isValid: boolean;
  readonly zone: { type: string };
  setZone(zone?: string): LuxonDateTime;
  toFormat(fmt: string): string;
  toJSDate(): Date;
  toJSON(): string | null;
  toISO(): string | null;
}

interface LuxonDateTimeStatic {
  fromSeconds(seconds: number, opts?: { zone?: string }): LuxonDateTime;
  fromObject(obj: { year: number; month: number; day: number }, opts?: { zone?: string }): LuxonDateTime;
}

export const DateTime = (require('luxon') as { DateTime: LuxonDateTimeStatic }).DateTime;

export interface HtmlToTextSelector {
  selector: string;
  format?: string;
  options?: Record<string, unknown>;
}

export interface HtmlToTextOptions {
  wordwrap?: number | false | null;
  preserveNewlines?: boolean;
  selectors?: HtmlToTextSelector[];
  decodeEntities?: boolean;
}

export const compileHtmlToText = (require('html-to-text') as {
  compile(options?: HtmlToTextOptions): (html: string) => string;
}).compile;
