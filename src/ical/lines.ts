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
  /** Lines that were neither a property nor a continuation, with their line numbers (the first few only). */
  stray: LogicalLine[];
  /** How many such lines there were in all. */
  strayCount: number;
}

const MAX_STRAY_KEPT = 5;

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

/**
 * The logical line being assembled. Continuations are collected and joined once at the end: appending to
 * a growing string and then testing it (`cur += p; cur.endsWith(...)`) flattens the rope on every fold,
 * which made a value folded over 80k lines take 49 s. Most lines are never folded: the list of parts is
 * made only at the first continuation. One instance serves every line of a file in turn (`open`), so
 * the 600k lines of a 20 MB feed allocate nothing here.
 */
class Pending {
  private first = '';
  private parts: string[] | undefined;
  line = 0;
  /** Where its first physical line starts in the text. */
  offset = 0;
  private qp: boolean | undefined;
  /** Whether a line is being assembled. */
  active = false;

  open(first: string, line: number, offset: number): void {
    this.first = first;
    this.parts = undefined;
    this.line = line;
    this.offset = offset;
    this.qp = undefined;
    this.active = true;
  }

  add(s: string): void {
    if (this.parts === undefined) this.parts = [this.first, s];
    else this.parts.push(s);
  }

  /** The property head (`NAME;PARAMS`) is decided once its `:` has been seen; until then it is re-checked. */
  private quotedPrintable(): boolean {
    if (this.qp !== undefined) return this.qp;
    let head = '';
    for (const part of this.parts ?? [this.first]) {
      const colon = part.indexOf(':');
      if (colon >= 0) {
        this.qp = isQuotedPrintable(head + part.slice(0, colon));
        return this.qp;
      }
      head += part;
      if (head.length > 4096) return (this.qp = isQuotedPrintable(head));
    }
    return isQuotedPrintable(head);
  }

  /** A QUOTED-PRINTABLE soft break (`=` at the very end): drops the `=` and says so. */
  takeSoftBreak(): boolean {
    const parts = this.parts;
    const last = parts === undefined ? this.first : parts[parts.length - 1];
    if (!last.endsWith('=') || !this.quotedPrintable()) return false;
    // The line has a part list from here on (its first part is the one cut).
    if (parts === undefined) this.parts = [last.slice(0, -1)];
    else parts[parts.length - 1] = last.slice(0, -1);
    return true;
  }

  startsWithBeginOrEnd(): boolean {
    return /^(BEGIN|END):/i.test(this.first);
  }

  text(): string {
    const parts = this.parts;
    return parts === undefined ? this.first : parts.length === 1 ? parts[0] : parts.join('');
  }
}

/** What unfolding found besides the lines themselves (see UnfoldResult). */
export type UnfoldStats = Omit<UnfoldResult, 'lines'>;

/**
 * Physical lines of `text`, split at CRLF, LF or CR exactly as `text.split(/\r\n|\n|\r/)` would, but
 * one at a time: a 20 MB feed has 600k lines, and an array of them all (plus an array of the logical
 * lines) was a large share of the parser's peak memory.
 */
class PhysicalLines {
  /** Where the next line starts. */
  pos = 0;
  /** Next LF / CR at or after `pos` (Infinity: none left); each is searched for again only once passed. */
  private lf = -1;
  private cr = -1;
  private done = false;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  next(): string | undefined {
    if (this.done) return undefined;
    const t = this.text;
    const from = this.pos;
    if (this.lf < from) this.lf = indexOr(t, '\n', from);
    if (this.cr < from) this.cr = indexOr(t, '\r', from);
    const end = Math.min(this.lf, this.cr);
    if (end === Infinity) {
      this.done = true;
      return t.slice(from);
    }
    this.pos = end + (end === this.cr && this.lf === end + 1 ? 2 : 1);
    return t.slice(from, end);
  }
}

function indexOr(t: string, c: string, from: number): number {
  const k = t.indexOf(c, from);
  return k < 0 ? Infinity : k;
}

/**
 * Calls `onLine` for every logical (unfolded) line in file order, with where its first physical line
 * starts in `text`; keeps none of them (nor an object per line).
 */
export function forEachLogicalLine(text: string, onLine: (text: string, line: number, offset: number) => void): UnfoldStats {
  const physical = new PhysicalLines(text);
  const stray: LogicalLine[] = [];
  let strayCount = 0;
  let brokenFolds = 0;
  const cur = new Pending();
  let pendingSoftBreak = false;

  const flush = (): void => {
    if (cur.active) onLine(cur.text(), cur.line, cur.offset);
    cur.active = false;
  };

  let nextAt = physical.pos;
  let next = physical.next();
  for (let i = 0; next !== undefined; i++) {
    let p = next;
    const at = nextAt;
    nextAt = physical.pos;
    next = physical.next();
    if (p.length > 0 && p.charCodeAt(0) === 0xfeff) p = p.replace(/^\uFEFF+/, '');
    const lineNo = i + 1;

    if (pendingSoftBreak && cur.active) {
      // QUOTED-PRINTABLE soft break: the next physical line continues the value verbatim (an indented
      // one is also an RFC fold, so its first whitespace character goes).
      cur.add(p.length > 0 && (p[0] === ' ' || p[0] === '\t') ? p.slice(1) : p);
      pendingSoftBreak = cur.takeSoftBreak();
      continue;
    }
    if (p.length === 0) {
      flush();
      continue;
    }
    const c = p[0];
    if ((c === ' ' || c === '\t') && cur.active) {
      cur.add(p.slice(1));
    } else if (startsProperty(p) || (!cur.active && startsProperty(p.trimStart())) || bareName(p, next)) {
      flush();
      cur.open(p.trimStart(), lineNo, at);
    } else if (cur.active && !cur.startsWithBeginOrEnd()) {
      // A wrapped value whose continuation lost its indent.
      cur.add(c === ' ' || c === '\t' ? p.trimStart() : p);
      brokenFolds++;
    } else {
      // Only the first few are shown; the rest are counted (a file of junk lines must not hold them all).
      if (p.trim()) {
        if (stray.length < MAX_STRAY_KEPT) stray.push({ text: p.slice(0, 200), line: lineNo });
        strayCount++;
      }
      continue;
    }
    if (cur.active) pendingSoftBreak = cur.takeSoftBreak();
  }
  flush();
  return { brokenFolds, stray, strayCount };
}

export function unfoldLines(text: string): UnfoldResult {
  const lines: LogicalLine[] = [];
  const stats = forEachLogicalLine(text, (t, line) => lines.push({ text: t, line }));
  return { lines, ...stats };
}
