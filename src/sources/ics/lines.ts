/**
 * Physical lines -> logical (unfolded) content lines, tolerant of what real feeds do:
 * CRLF, LF or CR line ends; folds with SPACE or TAB (exactly one character removed, RFC 5545 3.1);
 * QUOTED-PRINTABLE soft line breaks (`=` at the end, next line not indented); blank lines; and "broken
 * folds" where a writer wrapped a long value without indenting the continuation. A line that cannot start
 * a property (no `NAME:`/`NAME;` head with a plausible name) is taken as such a continuation of the
 * previous property, or dropped with a warning when there is nothing to continue (junk between
 * components).
 */
export interface LogicalLine {
  text: string;
  /** 1-based physical line number where the logical line starts. */
  line: number;
}

export interface UnfoldResult {
  lines: LogicalLine[];
  /** Continuation lines that had no leading whitespace and were joined anyway. */
  brokenFolds: number;
  /** Lines that were neither a property nor a continuation, with their line numbers. */
  stray: LogicalLine[];
}

// RFC 5545/5546/7986/9073 and vCalendar 1.0 property names; anything X- or all-uppercase is accepted too.
const KNOWN = new Set(
  ('BEGIN END CALSCALE METHOD PRODID VERSION ATTACH CATEGORIES CLASS COMMENT DESCRIPTION GEO LOCATION PERCENT-COMPLETE ' +
    'PRIORITY RESOURCES STATUS SUMMARY COMPLETED DTEND DUE DTSTART DURATION FREEBUSY TRANSP TZID TZNAME TZOFFSETFROM ' +
    'TZOFFSETTO TZURL ATTENDEE CONTACT ORGANIZER RECURRENCE-ID RELATED-TO URL UID EXDATE EXRULE RDATE RRULE ACTION REPEAT ' +
    'TRIGGER CREATED DTSTAMP LAST-MODIFIED SEQUENCE REQUEST-STATUS NAME REFRESH-INTERVAL SOURCE COLOR IMAGE CONFERENCE ' +
    'AALARM DALARM MALARM PALARM DCREATED TZ DAYLIGHT LOCATION-TYPE STRUCTURED-DATA STYLED-DESCRIPTION ACKNOWLEDGED ' +
    'PROXIMITY BUSYTYPE CALENDAR-ADDRESS PARTICIPANT-TYPE')
    .split(' '),
);

function isNameChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45;
}

/** `NAME;` or `NAME:` at the start, with a plausible NAME (hand-rolled: this runs once per line). */
function startsProperty(s: string): boolean {
  let i = 0;
  let upper = true;
  while (i < s.length && isNameChar(s.charCodeAt(i))) {
    const c = s.charCodeAt(i);
    if (c >= 97 && c <= 122) upper = false;
    i++;
  }
  if (i === 0 || i >= s.length) return false;
  const d = s.charCodeAt(i);
  if (d !== 58 && d !== 59) return false;
  const first = s.charCodeAt(0);
  // Unknown all-uppercase names are vendor properties (Confluence writes SUBCALENDAR-ID without X-);
  // "Details: ..." in a wrapped description is text, not a property.
  if (upper && first >= 65 && first <= 90) return true;
  const name = s.slice(0, i);
  if (KNOWN.has(name.toUpperCase())) return true;
  return name.length > 2 && (first === 88 || first === 120) && name.charCodeAt(1) === 45;
}

/**
 * Mozilla Calendar 1.0 folds every property as `NAME` / ` ;PARAM=..` / ` :value`: a line holding only a
 * name starts a property when the next line is a fold continuing it with `;` or `:`.
 */
function bareName(p: string, next: string | undefined): boolean {
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(p) || next === undefined) return false;
  return (next[0] === ' ' || next[0] === '\t') && /^[;:]/.test(next.slice(1));
}

function isQuotedPrintable(s: string): boolean {
  const colon = s.indexOf(':');
  const head = colon < 0 ? s : s.slice(0, colon);
  return /;ENCODING=QUOTED-PRINTABLE/i.test(head);
}

export function unfoldLines(text: string): UnfoldResult {
  const physical = text.split(/\r\n|\n|\r/);
  const lines: LogicalLine[] = [];
  const stray: LogicalLine[] = [];
  let brokenFolds = 0;
  let cur: string | undefined;
  let curLine = 0;
  let pendingSoftBreak = false;

  const flush = (): void => {
    if (cur !== undefined) lines.push({ text: cur, line: curLine });
    cur = undefined;
  };

  for (let i = 0; i < physical.length; i++) {
    let p = physical[i];
    if (p.length > 0 && p.charCodeAt(0) === 0xfeff) p = p.replace(/^\uFEFF+/, '');
    const lineNo = i + 1;

    if (pendingSoftBreak && cur !== undefined) {
      // QUOTED-PRINTABLE soft break: the next physical line continues the value verbatim (an indented
      // one is also an RFC fold, so its first whitespace character goes).
      pendingSoftBreak = false;
      cur += p.length > 0 && (p[0] === ' ' || p[0] === '\t') ? p.slice(1) : p;
      if (cur.endsWith('=') && isQuotedPrintable(cur)) {
        cur = cur.slice(0, -1);
        pendingSoftBreak = true;
      }
      continue;
    }
    if (p.length === 0) {
      flush();
      continue;
    }
    const c = p[0];
    if ((c === ' ' || c === '\t') && cur !== undefined) {
      cur += p.slice(1);
    } else if (startsProperty(p) || (cur === undefined && startsProperty(p.trimStart())) || bareName(p, physical[i + 1])) {
      flush();
      cur = p.trimStart();
      curLine = lineNo;
    } else if (cur !== undefined && !/^(BEGIN|END):/i.test(cur)) {
      // A wrapped value whose continuation lost its indent.
      cur += c === ' ' || c === '\t' ? p.trimStart() : p;
      brokenFolds++;
    } else {
      if (p.trim()) stray.push({ text: p, line: lineNo });
      continue;
    }
    if (cur !== undefined && cur.endsWith('=') && isQuotedPrintable(cur)) {
      cur = cur.slice(0, -1);
      pendingSoftBreak = true;
    }
  }
  flush();
  return { lines, brokenFolds, stray };
}
