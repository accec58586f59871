import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { decodeIcs } from '../../src/sources/ics/index.ts';
import { unfoldLines } from '../../src/ical/lines.ts';
import { parseContentLine } from '../../src/ical/contentline.ts';
import { parseIcsText } from '../../src/ical/parse.ts';
import { ics, run } from './helpers.ts';
import { IcsNotCalendarError } from '../../src/sources/ics/errors.ts';

const SAMPLE = 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nSUMMARY:Grüße – Café ☕ 🐎\r\nDTSTART:20240101T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';

function utf16(text: string, le: boolean, bom: boolean): Uint8Array {
  const body = Buffer.from(text, 'utf16le');
  if (!le) body.swap16();
  const mark = le ? [0xff, 0xfe] : [0xfe, 0xff];
  return new Uint8Array(bom ? Buffer.concat([Buffer.from(mark), body]) : body);
}

describe('decodeIcs', () => {
  it('reads UTF-8, without and with a BOM, and with two BOMs', () => {
    const plain = new TextEncoder().encode(SAMPLE);
    expect(decodeIcs(plain)).toEqual({ text: SAMPLE, encoding: 'utf-8' });
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...plain]);
    expect(decodeIcs(bom).text).toBe(SAMPLE);
    const two = new Uint8Array([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...plain]);
    expect(decodeIcs(two).text).toBe(SAMPLE);
  });

  it('reads UTF-16 LE and BE, with and without BOM (sniffing NUL bytes)', () => {
    for (const le of [true, false]) {
      for (const bom of [true, false]) {
        const r = decodeIcs(utf16(SAMPLE, le, bom));
        expect(r.encoding).toBe(le ? 'utf-16le' : 'utf-16be');
        expect(r.text).toBe(SAMPLE);
      }
    }
  });

  it('reads UTF-32 with a BOM', () => {
    const body = iconv.encode(SAMPLE, 'utf32le');
    const r = decodeIcs(new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), body])));
    expect(r.encoding).toBe('utf-32le');
    expect(r.text).toBe(SAMPLE);
  });

  it('falls back to Windows-1252 when the bytes are not UTF-8', () => {
    const text = 'SUMMARY:Två öl på Café – 5 €\r\n';
    const r = decodeIcs(new Uint8Array(iconv.encode(text, 'windows-1252')));
    expect(r).toEqual({ text, encoding: 'windows-1252' });
    const latin1 = decodeIcs(new Uint8Array(iconv.encode('SUMMARY:Två\r\n', 'latin1')));
    expect(latin1.text).toBe('SUMMARY:Två\r\n');
  });

  it('keeps valid UTF-8 lines when a few lines are Windows-1252', () => {
    const bytes = Buffer.concat([Buffer.from('SUMMARY:Grüße aus Köln\r\n', 'utf8'), iconv.encode('LOCATION:Västerås\r\n', 'windows-1252')]);
    const r = decodeIcs(new Uint8Array(bytes));
    expect(r.encoding).toBe('utf-8+windows-1252');
    expect(r.text).toBe('SUMMARY:Grüße aus Köln\r\nLOCATION:Västerås\r\n');
  });

  it('decodes a multi-byte character that a fold splits (RFC folds at 75 octets)', () => {
    // "ä" = C3 A4, "☕" = E2 98 95, "🐎" = F0 9F 90 8E: split after the first byte each time.
    const split = Buffer.concat([
      Buffer.from('SUMMARY:K'), Buffer.from([0xc3]), Buffer.from('\r\n '), Buffer.from([0xa4]), Buffer.from('se '),
      Buffer.from([0xe2]), Buffer.from('\n\t'), Buffer.from([0x98, 0x95]), Buffer.from(' '),
      Buffer.from([0xf0, 0x9f]), Buffer.from('\r\n '), Buffer.from([0x90, 0x8e]), Buffer.from('\r\n'),
    ]);
    const r = decodeIcs(new Uint8Array(split));
    expect(r.encoding).toBe('utf-8');
    // Line structure is kept (line numbers stay right); unfolding then joins the pieces.
    expect(r.text.split(/\r?\n/)).toHaveLength(5);
    expect(unfoldLines(r.text).lines.map((l) => l.text)).toEqual(['SUMMARY:Käse ☕ 🐎']);
  });

  it('honours a vCalendar CHARSET parameter when the bytes are not UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('SUMMARY;CHARSET=ISO-8859-2:'), iconv.encode('Łódź', 'iso-8859-2'), Buffer.from('\r\n')]);
    expect(decodeIcs(new Uint8Array(bytes)).text).toBe('SUMMARY;CHARSET=ISO-8859-2:Łódź\r\n');
  });
});

describe('unfolding and content lines', () => {
  it('unfolds SPACE and TAB folds (removing exactly one character) with CRLF, LF or CR', () => {
    for (const nl of ['\r\n', '\n', '\r']) {
      const { lines } = unfoldLines(['DESCRIPTION:a', ' b', '\t c', '  d', 'SUMMARY:x'].join(nl));
      expect(lines.map((l) => l.text)).toEqual(['DESCRIPTION:ab c d', 'SUMMARY:x']);
      expect(lines.map((l) => l.line)).toEqual([1, 5]);
    }
  });

  it('joins continuation lines that lost their indent, but not stray lines between components', () => {
    const r = unfoldLines('DESCRIPTION:first part\n3.11 and more\nDetails: see below\nEND:VEVENT\nX\nEND:VCALENDAR');
    expect(r.lines.map((l) => l.text)).toEqual(['DESCRIPTION:first part3.11 and moreDetails: see below', 'END:VEVENT', 'END:VCALENDAR']);
    expect(r.brokenFolds).toBe(2);
    expect(r.stray).toEqual([{ text: 'X', line: 5 }]);
  });

  it('reads Mozilla 1.0 name / ;param / :value folding', () => {
    const { lines } = unfoldLines('DTSTART\n ;VALUE=DATE\n :20061031\nSUMMARY\n :x');
    expect(lines.map((l) => l.text)).toEqual(['DTSTART;VALUE=DATE:20061031', 'SUMMARY:x']);
  });

  it('joins QUOTED-PRINTABLE soft line breaks', () => {
    const { lines } = unfoldLines('DESCRIPTION;ENCODING=QUOTED-PRINTABLE:Mic=\nrosoft=0D=0A<br>\nURL:http://x');
    expect(lines.map((l) => l.text)).toEqual(['DESCRIPTION;ENCODING=QUOTED-PRINTABLE:Microsoft=0D=0A<br>', 'URL:http://x']);
  });

  it('parses parameters: quoted values with : ; , inside, empty parameters, RFC 6868 carets', () => {
    expect(parseContentLine('DTSTAMP;TZID="Greenwich Mean Time:Dublin; Edinburgh":20110121T195741Z', 1)).toMatchObject({
      name: 'DTSTAMP', params: { TZID: 'Greenwich Mean Time:Dublin; Edinburgh' }, value: '20110121T195741Z',
    });
    expect(parseContentLine('DTSTART;;VALUE=DATE-TIME:20240101T100000', 1)).toMatchObject({ params: { VALUE: 'DATE-TIME' }, value: '20240101T100000' });
    expect(parseContentLine('ATTENDEE;CN="a ^\'b^\' ^^c";MEMBER="x","y":mailto:a@b', 1)?.params).toEqual({ CN: 'a "b" ^c', MEMBER: 'x,y' });
    expect(parseContentLine('summary:lower-case name', 3)).toEqual({ name: 'SUMMARY', params: {}, value: 'lower-case name', line: 3 });
  });

  it('recovers a TZID without "=" and a date-time swallowed by a quoted TZID', () => {
    expect(parseContentLine('DTEND;TZIDAsia/Tehran:20120616T110000', 1)).toMatchObject({ params: { TZID: 'Asia/Tehran' }, value: '20120616T110000' });
    expect(parseContentLine('DTSTART;TZID="W. Europe Standard Time:20200609T090000"', 1)).toMatchObject({
      params: { TZID: 'W. Europe Standard Time' }, value: '20200609T090000',
    });
    expect(parseContentLine('ORGANIZER;CN=Sixt SE', 1)).toMatchObject({ value: '', noValue: true });
  });
});

describe('damaged files', () => {
  it('reads a bare VEVENT without VCALENDAR', () => {
    const r = run('BEGIN:VEVENT\r\nUID:bare\r\nSUMMARY:Bare\r\nDTSTART:20240101T100000Z\r\nEND:VEVENT\r\n');
    expect(r.drafts.map((d) => d.identity)).toEqual(['bare']);
  });

  it('reads concatenated VCALENDARs and ignores junk after END:VCALENDAR', () => {
    const one = ics('UID:a\nSUMMARY:A\nDTSTART:20240101T100000Z');
    const two = ics('UID:b\nSUMMARY:B\nDTSTART:20240102T100000Z');
    const r = run(`${one}${two}X-COMMENT:cached\r\ngarbage\r\n`);
    expect(r.drafts.map((d) => d.identity)).toEqual(['a', 'b']);
    expect(r.summary.warnings.join('\n')).toMatch(/outside any component/);
  });

  it('parses what a truncated file has (missing END lines), also mid-file', () => {
    const r = run('BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nSUMMARY:A\nDTSTART:20240101T100000Z\nBEGIN:VEVENT\nUID:b\nSUMMARY:B\nDTSTART:20240102T100000Z\n');
    expect(r.drafts.map((d) => d.identity)).toEqual(['a', 'b']);
    expect(r.summary.warnings.filter((w) => /no END:VEVENT/.test(w))).toHaveLength(2);
  });

  it('garbage with a calendar shape is parsed; anything else is refused as not a calendar, never a crash', () => {
    for (const junk of ['BEGIN:VEVENT', 'BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:x\n', 'BEGIN:VCALENDAR\nEND:VCALENDAR']) {
      expect(() => run(junk)).not.toThrow();
    }
    const refused: Array<[string | Uint8Array, string]> = [
      ['', 'empty'],
      ['hello', 'no-vcalendar'],
      ['END:VEVENT\nEND:VCALENDAR', 'no-vcalendar'],
      ['\u0000\u0001\u0002', 'binary'],
      [new Uint8Array([0xff, 0xfe, 0x00]), 'binary'],
    ];
    for (const [junk, kind] of refused) {
      let err: unknown;
      try {
        run(junk);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(junk)).toBeInstanceOf(IcsNotCalendarError);
      expect((err as IcsNotCalendarError).code).toBe('ics-not-a-calendar');
      expect((err as IcsNotCalendarError).looksLike, JSON.stringify(junk)).toBe(kind);
    }
  });
});

describe('memory-lean reading of big feeds (one-byte text, streamed lines, VEVENTs read as they close)', () => {
  const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
  const reference = (b: Uint8Array): string => new TextDecoder('utf-8', { fatal: true }).decode(b).replace(/^\uFEFF+/, '');

  it('UTF-8 holding only U+0000..U+00FF decodes to exactly the text the UTF-8 decoder gives (BOMs stripped)', () => {
    const samples = ['', 'SUMMARY:plain ASCII\r\n', 'SUMMARY:Grüße, Straßenfest, Élan, Niño ¿¡ ÿ « » ©\r\n', '\u0080\u00bf\u00c0\u00ff', 'é'];
    for (const s of samples) {
      for (const bom of [0, 1, 2]) {
        const b = new Uint8Array([...Array.from({ length: bom }, () => [0xef, 0xbb, 0xbf]).flat(), ...utf8(s)]);
        expect(decodeIcs(b)).toEqual({ text: reference(b), encoding: 'utf-8' });
      }
    }
  });

  it('anything else takes the general path unchanged: wider characters, a BOM mid-file, broken or overlong sequences', () => {
    expect(decodeIcs(utf8('SUMMARY:Café – ☕\r\n')).text).toBe('SUMMARY:Café – ☕\r\n');
    expect(decodeIcs(utf8('A:é\n\uFEFFB:x\n')).text).toBe('A:é\nB:x\n');
    // A BOM inside a line stays, as the UTF-8 decoder keeps it (the Latin-1 converter drops it).
    expect(decodeIcs(utf8('A:é\uFEFFx\n')).text).toBe('A:é\uFEFFx\n');
    // Wider characters among many Latin-1 ones, of every UTF-8 length.
    for (const wide of ['Ā', '€', '😀']) expect(decodeIcs(utf8(`A:${'é'.repeat(50)}${wide}ÿ\n`)).text).toBe(`A:${'é'.repeat(50)}${wide}ÿ\n`);
    // 0xC3 then ASCII is not UTF-8: Windows-1252, as before.
    expect(decodeIcs(new Uint8Array([0x41, 0x3a, 0xc3, 0x41])).encoding).toBe('windows-1252');
    // 0xC1 0x81 is an overlong "A": not UTF-8 either.
    expect(decodeIcs(new Uint8Array([0x41, 0x3a, 0xc1, 0x81])).encoding).toBe('windows-1252');
    // A lone lead byte at the very end.
    expect(decodeIcs(new Uint8Array([0x41, 0x3a, 0xc3])).encoding).toBe('windows-1252');
  });

  it('physical lines split at CRLF, LF and CR exactly as String#split(/\\r\\n|\\n|\\r/) does, line numbers included', () => {
    const texts = ['A:1\r\nB:2\nC:3\rD:4', 'A:1\r\r\nB:2\n\nC:3\r\n', 'A:1\n\r\nB:2\r', '\r\n\r\nA:1', 'A:1', '', 'A:1\r\n'];
    for (const t of texts) {
      const expected = t
        .split(/\r\n|\n|\r/)
        .map((text, i) => ({ text, line: i + 1 }))
        .filter((l) => l.text !== '');
      expect(unfoldLines(t).lines, JSON.stringify(t)).toEqual(expected);
    }
  });

  it('parseIcsText with onVevent hands over every VEVENT in file order with its properties, closed or not, and keeps shells', () => {
    const text = [
      'BEGIN:VCALENDAR', 'X-WR-CALNAME:c', 'BEGIN:VEVENT', 'UID:1', 'BEGIN:VALARM', 'ACTION:DISPLAY', 'END:VALARM', 'END:VEVENT',
      'BEGIN:VEVENT', 'UID:2', // unterminated: closed by the next VEVENT
      'BEGIN:VEVENT', 'UID:3', 'END:VEVENT', 'END:VCALENDAR', 'BEGIN:VEVENT', 'UID:4', // bare root, cut off
    ].join('\r\n');
    const whole = parseIcsText(text);
    const seen: Array<{ uid: string; props: number; children: number; unterminated?: boolean }> = [];
    const streamed = parseIcsText(text, (c) => seen.push({ uid: c.props.find((p) => p.name === 'UID')!.value, props: c.props.length, children: c.children.length, unterminated: c.unterminated }));
    expect(seen).toEqual([
      { uid: '1', props: 1, children: 1, unterminated: undefined },
      { uid: '2', props: 1, children: 0, unterminated: true },
      { uid: '3', props: 1, children: 0, unterminated: undefined },
      { uid: '4', props: 1, children: 0, unterminated: true },
    ]);
    expect(streamed.warnings.list()).toEqual(whole.warnings.list());
    expect(streamed.roots.map((r) => [r.name, r.children.map((c) => [c.name, c.props.length])])).toEqual([
      ['VCALENDAR', [['VEVENT', 0], ['VEVENT', 0], ['VEVENT', 0]]],
      ['VEVENT', []],
    ]);
    expect(streamed.roots[0].props).toEqual(whole.roots[0].props);
  });
});
