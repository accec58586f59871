import type { Component } from '../../ical/parse.ts';
import type { NotCalendarKind } from './errors.ts';
import { looksLikeHtmlPage } from '../html-page.ts';

/**
 * Is this an iCalendar file at all? The parser is tolerant by design (junk lines are skipped with a
 * warning), so an HTML error page, random bytes or an empty body would otherwise "import" 0 events and
 * exit 0. A file is a calendar when it has a VCALENDAR, or a bare VEVENT (some writers omit the wrapper);
 * a VCALENDAR with no events is an empty calendar, not an error. Otherwise say what it looks like.
 */
export function notCalendarKind(text: string, roots: Component[]): NotCalendarKind | undefined {
  if (roots.some((r) => r.name === 'VCALENDAR' || r.name === 'VEVENT')) return undefined;
  const head = text.slice(0, 4096);
  if (!head.trim()) return text.trim() ? classifyRest(text) : 'empty';
  if (looksBinary(head)) return 'binary';
  if (looksLikeHtmlPage(text)) return 'html';
  return 'no-vcalendar';
}

function classifyRest(text: string): NotCalendarKind {
  return looksBinary(text.slice(0, 65536)) ? 'binary' : 'no-vcalendar';
}

/**
 * Text decoded from random bytes is full of control characters (other than tab/CR/LF), replacement
 * characters and C1 controls; text written by people has almost none.
 */
function looksBinary(s: string): boolean {
  let odd = 0;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n++;
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd || (c >= 0x7f && c < 0xa0) || (c >= 0xd800 && c < 0xe000)) odd++;
  }
  return n > 0 && odd / n > 0.05;
}
