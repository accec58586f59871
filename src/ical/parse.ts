import { copyProp, nameCache, readContentLine, scratchProp, type Prop } from './contentline.ts';
import { forEachLogicalLine, type UnfoldStats } from './lines.ts';
import { WarningList } from './warnings.ts';

/**
 * Text -> component tree. Tolerant by design: a bare VEVENT without VCALENDAR is a root of its own;
 * several VCALENDARs in one file are several roots; lines after the last END are ignored (reported);
 * a file cut off before its END lines keeps what it has (each unterminated component is reported);
 * a top-level component (VEVENT, VTIMEZONE, ...) that begins while another is still open closes it
 * first, because components like VEVENT never nest.
 *
 * Costs one pass over the lines; nothing is re-scanned, so 20 MB feeds stay linear.
 */
export interface Component {
  /** Upper-cased component name (VCALENDAR, VEVENT, VTIMEZONE, STANDARD, VALARM, ...). */
  name: string;
  props: Prop[];
  children: Component[];
  /** 1-based line of its BEGIN. */
  line: number;
  /** True when the file never closed it (truncated or missing END). */
  unterminated?: boolean;
}

export interface ParsedIcs {
  roots: Component[];
  /** Human-readable notes about recovered damage (line numbers included); capped (warnings.ts). */
  warnings: WarningList;
  brokenFolds: number;
}

/** Components that only ever sit directly inside a VCALENDAR. */
const CALENDAR_LEVEL = new Set(['VEVENT', 'VTODO', 'VJOURNAL', 'VFREEBUSY', 'VTIMEZONE', 'VAVAILABILITY']);
/** Real calendars nest 3-4 deep (VCALENDAR > VEVENT > VALARM); deeper BEGINs are junk and ignored. */
const MAX_DEPTH = 16;

/**
 * A VEVENT's own properties handed over one at a time as they are parsed, instead of collected into
 * its component (see parseIcsText). VEVENTs never nest, so at most one is open at a time.
 */
export interface VeventStream {
  /** A VEVENT begins at `line`, `offset` characters into the text. */
  begin(line: number, offset: number): void;
  /**
   * One property of the open VEVENT (not of its VALARMs), in file order. The same object is
   * refilled for the next line: read it now, keep none of it but its strings.
   */
  prop(p: Prop): void;
  /**
   * The open VEVENT closed (END, or unterminated); `c` is its shell (no properties or children).
   * `offset`: where the line that closed it starts (the end of the text when the file ended first).
   */
  end(c: Component, offset: number): void;
}

/**
 * `onVevent`, when given, receives each VEVENT as soon as it is closed (END, or closed unterminated),
 * in file order; its properties and children are then dropped from the tree (the VEVENT stays as an empty
 * shell, so the roots still show what the file holds). A caller that reads events this way never holds
 * the whole tree of a big feed, only the events it has read. A VeventStream instead receives a VEVENT's
 * properties as they are parsed, so they are never collected at all.
 */
export function parseIcsText(text: string, onVevent?: ((c: Component) => void) | VeventStream): ParsedIcs {
  const warnings = new WarningList();
  // Lines skipped: BEGINs nested too deep, lines outside any component (counts, and the first of each).
  const skip = { tooDeep: 0, firstTooDeep: 0, outside: 0, firstOutside: 0 };
  const roots: Component[] = [];
  const stack: Component[] = [];
  const names = nameCache();
  let streamed: Component | undefined; // the VEVENT whose properties go to a VeventStream, while open
  const line = scratchProp();

  const closed = (c: Component): void => {
    if (onVevent === undefined || c.name !== 'VEVENT') return;
    if (typeof onVevent === 'function') onVevent(c);
    c.props = [];
    c.children = [];
    if (c !== streamed) return;
    streamed = undefined;
    (onVevent as VeventStream).end(c, lineAt);
  };
  const closeUnterminated = (c: Component, why: string): void => {
    c.unterminated = true;
    warnings.add(`${c.name} at line ${c.line} has no END:${c.name} (${why})`);
    closed(c);
  };

  let lineAt = 0;
  const { brokenFolds, stray, strayCount } = forEachLogicalLine(text, (lineText, lineNo, offset) => {
    lineAt = offset;
    const prop = readContentLine(lineText, lineNo, names, line);
    if (!prop) return;
    if (prop.name === 'BEGIN') {
      const name = prop.value.trim().toUpperCase();
      if (!name) return;
      if (name === 'VCALENDAR') {
        while (stack.length) closeUnterminated(stack.pop()!, `a new VCALENDAR begins at line ${lineNo}`);
      } else if (CALENDAR_LEVEL.has(name)) {
        while (stack.length && stack[stack.length - 1].name !== 'VCALENDAR') {
          closeUnterminated(stack.pop()!, `${name} begins at line ${lineNo}`);
        }
      }
      if (stack.length >= MAX_DEPTH) {
        if (!skip.tooDeep) skip.firstTooDeep = lineNo;
        skip.tooDeep++;
        return;
      }
      const comp: Component = { name, props: [], children: [], line: lineNo };
      if (stack.length) stack[stack.length - 1].children.push(comp);
      else roots.push(comp);
      stack.push(comp);
      if (typeof onVevent === 'object' && name === 'VEVENT') {
        streamed = comp;
        onVevent.begin(lineNo, offset);
      }
      return;
    }
    if (prop.name === 'END') {
      const name = prop.value.trim().toUpperCase();
      let k = stack.length - 1;
      while (k >= 0 && stack[k].name !== name) k--;
      if (k < 0) {
        warnings.add(`line ${lineNo}: END:${name} without a matching BEGIN, ignored`);
        return;
      }
      while (stack.length - 1 > k) closeUnterminated(stack.pop()!, `END:${name} at line ${lineNo}`);
      closed(stack.pop()!);
      return;
    }
    if (!stack.length) {
      if (!skip.outside) skip.firstOutside = lineNo;
      skip.outside++;
      return;
    }
    const top = stack[stack.length - 1];
    if (top === streamed) (onVevent as VeventStream).prop(prop);
    else top.props.push(copyProp(prop));
  });
  lineAt = text.length;
  while (stack.length) closeUnterminated(stack.pop()!, 'file ends first');
  if (skip.tooDeep) warnings.add(`${skip.tooDeep} BEGIN line(s) nested more than ${MAX_DEPTH} deep ignored (first at line ${skip.firstTooDeep})`);
  if (skip.outside) warnings.add(`${skip.outside} line(s) outside any component ignored (first at line ${skip.firstOutside})`);
  warnUnfolding(warnings, { brokenFolds, stray, strayCount });
  return { roots, warnings, brokenFolds };
}

/** What unfolding recovered from, after the parse's own notes. */
function warnUnfolding(warnings: WarningList, { brokenFolds, stray, strayCount }: UnfoldStats): void {
  for (const s of stray) warnings.add(`line ${s.line}: not a content line, ignored: ${JSON.stringify(s.text.slice(0, 60))}`);
  if (strayCount > stray.length) warnings.add(`${strayCount - stray.length} more stray line(s) ignored`);
  if (brokenFolds) warnings.add(`${brokenFolds} continuation line(s) without leading whitespace joined to the previous property`);
}

/** First property of a name, or undefined. */
export function prop(c: Component, name: string): Prop | undefined {
  for (const p of c.props) if (p.name === name) return p;
  return undefined;
}

export function props(c: Component, name: string): Prop[] {
  return c.props.filter((p) => p.name === name);
}
