import iconv from 'iconv-lite';
import Papa from 'papaparse';
import { Readable, Writable, pipeline } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { guessEncoding, SAMPLE_BYTES } from '../../src/sources/csv/decode.ts';
import { detectDelimiter } from '../../src/sources/csv/delimiter.ts';
import { inspectCsv, readCsv, readCsvBatches } from '../../src/sources/csv/index.ts';
import { bytesOpen, collect, draftAt, failureAt, opts, refusal } from './helpers.ts';

const UNICODE = 'Title,Start Date,Venue\nFrançois à Zürich,2024-01-05,Łódź 東京 🎉\nCrème brûlée,2024-01-06,Café\n';

describe('decoding before papaparse', () => {
  it('papaparse alone corrupts a UTF-8 character split across chunks (why decode.ts exists)', async () => {
    const bytes = Buffer.from('a\nFrançois\n', 'utf8');
    const rows: string[][] = [];
    await new Promise<void>((resolve, reject) =>
      pipeline(
        Readable.from([bytes.subarray(0, 7), bytes.subarray(7)]), // splits the two bytes of "ç"
        Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter: ',', newline: '\n' }),
        new Writable({ objectMode: true, write: (row, _e, cb) => (rows.push(row), cb()) }),
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    expect(rows[1]![0]).not.toBe('François');
  });

  it('survives a stream fed one byte at a time (multi-byte UTF-8 split everywhere)', async () => {
    const c = await collect(bytesOpen(UNICODE, 1), opts());
    expect(c.inspection.encoding).toBe('utf-8');
    expect(c.drafts.map((d) => d.title)).toEqual(['François à Zürich', 'Crème brûlée']);
    expect(draftAt(c, 2).venue?.venue).toBe('Łódź 東京 🎉');
  });

  it('CRLF fed byte by byte: "\\r" and "\\n" arrive in different chunks, no stray "\\r" in cells', async () => {
    const c = await collect(bytesOpen(UNICODE.replace(/\n/g, '\r\n'), 1), opts());
    expect(c.inspection.newline).toBe('\r\n');
    expect(draftAt(c, 3).venue?.venue).toBe('Café');
  });

  it('a UTF-8 BOM does not stick to the first header', async () => {
    const c = await collect(bytesOpen(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(UNICODE)])), opts());
    expect(c.inspection.headers[0]).toBe('Title');
    expect(c.inspection.mapping.Title).toBe('title');
    expect(c.drafts).toHaveLength(2);
  });

  for (const enc of ['utf-16le', 'utf-16be'] as const) {
    it(`${enc} with BOM, read in odd-sized chunks`, async () => {
      const bytes = iconv.encode(UNICODE.replace(/\n/g, '\r\n'), enc, { addBOM: true });
      const c = await collect(bytesOpen(bytes, 7), opts());
      expect(c.inspection.encoding).toBe(enc);
      expect(c.inspection.headers).toEqual(['Title', 'Start Date', 'Venue']);
      expect(c.drafts.map((d) => d.title)).toEqual(['François à Zürich', 'Crème brûlée']);
      expect(draftAt(c, 2).venue?.venue).toBe('Łódź 東京 🎉');
    });
  }

  it('UTF-16LE without a BOM is recognized by its NUL bytes', async () => {
    const c = await collect(bytesOpen(iconv.encode(UNICODE, 'utf-16le')), opts());
    expect(c.inspection.encoding).toBe('utf-16le');
    expect(c.drafts[0]!.title).toBe('François à Zürich');
  });

  it('UTF-32LE without a BOM is recognized: the sniffer shared with ICS (src/sources/text/sniff.ts) knows it', async () => {
    const c = await collect(bytesOpen(iconv.encode(UNICODE, 'utf-32le'), 5), opts());
    expect(c.inspection.encoding).toBe('utf-32le');
    expect(c.drafts.map((d) => d.title)).toEqual(['François à Zürich', 'Crème brûlée']);
    expect(draftAt(c, 2).venue?.venue).toBe('Łódź 東京 🎉');
  });

  it('Windows-1252 (€ at 0x80, é) is detected and decoded', async () => {
    const bytes = iconv.encode('Title;Start Date;Cost\nCafé concert;2024-01-05;10 €\n', 'windows-1252');
    expect(bytes.includes(0x80)).toBe(true);
    const c = await collect(bytesOpen(bytes), opts());
    expect(c.inspection.encoding).toBe('windows-1252');
    expect(c.drafts[0]).toMatchObject({ title: 'Café concert', cost: '10 €' });
  });

  it('an ASCII head with a Latin-1 byte past the sample switches the file to Windows-1252', async () => {
    let text = 'Title,Start Date\n';
    for (let i = 0; text.length < SAMPLE_BYTES + 1000; i++) text += `Event ${i},2024-01-05\n`;
    const bytes = Buffer.concat([Buffer.from(text), iconv.encode('Ålesund café,2024-01-06\n', 'windows-1252')]);
    const c = await collect(bytesOpen(bytes), opts());
    expect(c.inspection.encoding).toBe('windows-1252');
    expect(c.drafts.at(-1)!.title).toBe('Ålesund café');
  });

  it('the encoding option overrides detection; an unknown one is refused', async () => {
    const bytes = iconv.encode('Title,Start Date\nÅre,2024-01-05\n', 'iso-8859-1');
    const c = await collect(bytesOpen(bytes), opts({ encoding: 'ISO-8859-1' }));
    expect(c.inspection.encoding).toBe('iso-8859-1');
    expect(c.drafts[0]!.title).toBe('Åre');
    const wrong = await collect(bytesOpen(Buffer.from('Title,Start Date\nÅre,2024-01-05\n')), opts({ encoding: 'windows-1252' }));
    expect(wrong.drafts[0]!.title).toBe('Ã…re'); // the option is obeyed, even when wrong
    const r = await refusal(inspectCsv(bytesOpen(bytes), opts({ encoding: 'klingon-8' })));
    expect(r.reason).toBe("unknown encoding 'klingon-8'");
    expect(r.hint).toContain('--encoding');
  });

  it('guesses: BOMs, ASCII, valid UTF-8, else Windows-1252', () => {
    expect(guessEncoding(Buffer.from([0xff, 0xfe, 0x41, 0]))).toMatchObject({ encoding: 'utf-16le', how: 'bom' });
    expect(guessEncoding(Buffer.from([0xfe, 0xff, 0, 0x41]))).toMatchObject({ encoding: 'utf-16be', how: 'bom' });
    expect(guessEncoding(Buffer.from('plain'))).toMatchObject({ encoding: 'utf-8', how: 'ascii' });
    expect(guessEncoding(Buffer.from('Zürich'))).toMatchObject({ encoding: 'utf-8', how: 'utf8' });
    expect(guessEncoding(iconv.encode('Zürich, Ålesund, Øst', 'latin1')).encoding).toBe('windows-1252');
    // A sample cut in the middle of a UTF-8 character is still UTF-8.
    expect(guessEncoding(Buffer.from('Zürich').subarray(0, 2)).encoding).toBe('utf-8');
  });
});

describe('physical line numbers', () => {
  it('count header, blank lines and line breaks inside quoted fields (LF, CRLF, CR)', async () => {
    const text = [
      'Title,Start Date,Description', // 1
      'A,2024-01-01,"one', // 2
      'two', // 3
      'three"', // 4
      '', // 5 (blank)
      'B,2024-01-02,plain', // 6
      'C,2024-01-03,"x\r\ny\rz"', // 7-9 (CRLF and a lone CR inside the field)
      'D,2024-01-04,x,y', // 10: ragged (more cells than the header)
      'E,2024-01-05,"a ""quoted"" word"', // 11
    ].join('\n');
    const c = await collect(bytesOpen(text, 3), opts());
    expect(c.items.map((i) => i.line)).toEqual([2, 6, 7, 10, 11]);
    expect(c.inspection).toMatchObject({ rows: 5, blankLines: 1 });
    expect(draftAt(c, 2).description).toBe('one\ntwo\nthree');
    expect(failureAt(c, 10).reason).toBe('row: has 4 fields, the header has 3');
    expect(draftAt(c, 11).description).toBe('a "quoted" word');
  });

  it('a title row, then rows with embedded CRLFs: rejects point at the right lines', async () => {
    const text = 'My events export,,\r\nTitle,Start Date,Description\r\nA,2024-01-01,"l1\r\nl2"\r\nB,31/31/2024,x\r\n';
    const c = await collect(bytesOpen(text), opts());
    expect(c.inspection).toMatchObject({ headerLine: 2, skippedLines: [1] });
    expect(draftAt(c, 3).title).toBe('A');
    expect(failureAt(c, 5).reason).toMatch(/^Start Date: '31\/31\/2024'/);
  });

  it('trailing empty cells (a trailing delimiter) are not a ragged row; extra values are', async () => {
    const c = await collect(bytesOpen('Title,Start Date\nA,2024-01-01,,\nB,2024-01-02,oops\n'), opts());
    expect(draftAt(c, 2).title).toBe('A');
    expect(failureAt(c, 3).reason).toBe('row: has 3 fields, the header has 2');
    expect(failureAt(c, 3).raw).toEqual(['B', '2024-01-02', 'oops']);
  });
});

describe('delimiters', () => {
  it('detects , ; tab | from the first lines', () => {
    expect(detectDelimiter('a,b,c\n1,2,3\n', true)).toBe(',');
    expect(detectDelimiter('a;b;c\n1;2,5;3\n', true)).toBe(';');
    expect(detectDelimiter('a\tb\tc\n1\t2\t3\n', true)).toBe('\t');
    expect(detectDelimiter('a|b|c\n1|2|3\n', true)).toBe('|');
    // Every row has one comma (in a date), but more semicolons, consistently.
    expect(detectDelimiter('Title;Date;Place\nA;Jan 5, 2024;X\nB;Jan 6, 2024;Y\n', true)).toBe(';');
    // Delimiters inside quotes do not count.
    expect(detectDelimiter('"a;b",c\n"1;2",3\n', true)).toBe(',');
    expect(detectDelimiter('single\ncolumn\n', true)).toBe(',');
  });

  it('reads tab- and pipe-separated files; the delimiter option overrides', async () => {
    const tab = await collect(bytesOpen('Title\tStart Date\tCategories\nA\t2024-01-01\tx, y\n'), opts());
    expect(tab.inspection.delimiter).toBe('\t');
    expect(tab.drafts[0]!.categories).toEqual([{ name: 'x' }, { name: 'y' }]);
    const pipe = await collect(bytesOpen('Title|Start Date\nA|2024-01-01\n'), opts());
    expect(pipe.inspection.delimiter).toBe('|');
    const text = 'Title;Start Date;Where,Note\nA;2024-01-01;X,n\n';
    expect((await inspectCsv(bytesOpen(text), opts())).delimiter).toBe(';');
    const r = await refusal(inspectCsv(bytesOpen(text), opts({ delimiter: ',' })));
    expect(r.reason).toContain('line 1: Title;Start Date;Where, Note');
  });
});

describe('streaming', () => {
  it('stops reading and destroys the source when the consumer stops early', async () => {
    let text = 'Title,Start Date\n';
    for (let i = 0; i < 20000; i++) text += `E${i},2024-01-05\n`;
    const o = opts();
    const inspection = await inspectCsv(bytesOpen(text), o);
    const bytes = Buffer.from(text);
    let source: Readable | undefined;
    let read = 0;
    const open = () => {
      source = Readable.from(
        (function* () {
          for (let i = 0; i < bytes.length; i += 1024) {
            read += 1024;
            yield bytes.subarray(i, i + 1024);
          }
        })(),
        { objectMode: false },
      );
      return source;
    };
    let n = 0;
    for await (const _ of readCsv(open, o, inspection)) if (++n === 10) break;
    await new Promise((r) => setImmediate(r));
    expect(source!.destroyed).toBe(true);
    expect(read).toBeLessThan(bytes.length / 2);
  });

  it('batches hold the same items, in order, as readCsv, none empty, and stopping early destroys the source', async () => {
    let text = 'Title,Start Date,Description\n';
    for (let i = 0; i < 3000; i++) text += i % 11 === 0 ? `T${i % 97},2024-01-0${(i % 9) + 1},"two\nlines"\n` : i % 13 === 0 ? '\n' : `E${i},2024-01-05,plain\n`;
    const o = opts();
    const inspection = await inspectCsv(bytesOpen(text), o);
    const one: unknown[] = [];
    for await (const item of readCsv(bytesOpen(text, 333), o, inspection)) one.push(item);
    const batched: unknown[] = [];
    let batches = 0;
    for await (const items of readCsvBatches(bytesOpen(text, 333), o, inspection)) {
      expect(items.length).toBeGreaterThan(0);
      batches++;
      batched.push(...items);
    }
    expect(batches).toBeGreaterThan(1);
    expect(batched).toEqual(one);
    expect(one.length).toBe(inspection.rows);
    let source: Readable | undefined;
    const open = () => (source = bytesOpen(text, 1024)() as Readable);
    for await (const _ of readCsvBatches(open, o, inspection)) break;
    await new Promise((r) => setImmediate(r));
    expect(source!.destroyed).toBe(true);
  });

  it('a read error reaches the consumer', async () => {
    const o = opts();
    const good = 'Title,Start Date\nA,2024-01-05\n';
    const inspection = await inspectCsv(bytesOpen(good), o);
    const open = () =>
      new Readable({
        read() {
          this.push(Buffer.from(good));
          this.destroy(new Error('disk on fire'));
        },
      });
    await expect(async () => {
      for await (const _ of readCsv(open, o, inspection));
    }).rejects.toThrow('disk on fire');
  });
});

describe('chunking does not change the records', () => {
  it('same records and lines for every chunk size, with quotes, CRLF inside fields, blank lines and no final newline', async () => {
    const { openRecords } = await import('../../src/sources/csv/parse.ts');
    let text = 'Title,Start Date,Description\r\n';
    for (let i = 0; i < 400; i++) {
      text += i % 7 === 0 ? `"T ""${i}""",2024-01-0${(i % 9) + 1},"multi\r\nline ${i}\nmore"\r\n` : `T${i},2024-01-0${(i % 9) + 1},é${i}\r\n`;
      if (i % 50 === 0) text += '\r\n';
    }
    text += 'last,2024-01-01,"no final newline"';
    const read = async (chunk: number) => {
      const rs = await openRecords(bytesOpen(text, chunk)());
      const out: string[] = [];
      for await (const r of rs.records) out.push(`${r.line}:${JSON.stringify(r.fields)}`);
      return out;
    };
    const reference = await read(1 << 20);
    expect(reference.at(-1)).toMatch(/"no final newline"/);
    for (const size of [1, 2, 3, 7, 64, 1000, 16 * 1024 + 1]) expect(await read(size), `chunk ${size}`).toEqual(reference);
    const lastLine = Number(reference.at(-1)!.split(':')[0]);
    expect(lastLine).toBe(text.split(/\r\n|\n|\r/).length);
  });

  it('rows whose text holds a line break other than their terminator are counted from their fields (parse.ts skips the count only for the others)', async () => {
    const { openRecords } = await import('../../src/sources/csv/parse.ts');
    const cases: [string, string, number[]][] = [
      // a stray CR in an LF file (unquoted), and a CR between a closing quote and the LF
      ['Title,Start Date,Description\nA,2024-01-01,pl\rain\nB,2024-01-02,"q"\r\nC,2024-01-03,x\n', 'LF', [1, 2, 4, 5]],
      // a stray LF in a CRLF file (unquoted), then a quoted CRLF
      ['Title,Start Date,Description\r\nA,2024-01-01,pl\nain\r\nB,2024-01-02,"two\r\nlines"\r\nC,2024-01-03,x\r\n', 'CRLF', [1, 2, 4, 6]],
      // the last row has no terminator but line breaks of its own
      ['Title,Start Date,Description\nA,2024-01-01,x\nB,2024-01-02,"no\nfinal\r\nnewline"', 'no final newline', [1, 2, 3]],
      // CR-only file with a quoted LF
      ['Title,Start Date,Description\rA,2024-01-01,"a\nb"\rB,2024-01-02,x\r', 'CR', [1, 2, 4]],
    ];
    for (const [text, name, lines] of cases) {
      for (const size of [1, 5, 1 << 20]) {
        const rs = await openRecords(bytesOpen(text, size)());
        const got: number[] = [];
        for await (const r of rs.records) got.push(r.line);
        expect(got, `${name}, chunks of ${size}`).toEqual(lines);
      }
    }
  });

  it('line numbers are 1 + the line breaks of the previous record, whatever the quoting (parse.ts counts only the rows whose text holds a break)', async () => {
    const { openRecords, countLineBreaks } = await import('../../src/sources/csv/parse.ts');
    const { prng } = await import('../../src/util/random.ts');
    // Cells with quoted and unquoted line breaks, doubled quotes, stray quotes and text after a closing quote.
    const CELLS = ['x', '', 'a b', '"q"', '"a\nb"', '"a\r\nb"', '"c\rd"', '"say ""hi"""', 'a"b', '"q"x', '"q"  ', '"un\nclosed', 'é東', 'p\rq', 'p\nq'];
    for (let seed = 1; seed <= 60; seed++) {
      const rand = prng(seed);
      const newline = (['\n', '\r\n', '\r'] as const)[seed % 3]!;
      let text = `A,B,C${newline}`;
      for (let r = 0; r < 40; r++) {
        text += Array.from({ length: 3 }, () => (rand() < 0.7 ? `c${r}` : CELLS[Math.floor(rand() * CELLS.length)]!)).join(',') + newline;
      }
      for (const size of [3, 4096, 1 << 20]) {
        const rs = await openRecords(bytesOpen(text, size)(), { delimiter: ',', newline });
        let expected = 1;
        for await (const r of rs.records) {
          expect(r.line, `seed ${seed}, chunks of ${size}`).toBe(expected);
          expected = r.line + 1 + countLineBreaks(r.fields);
        }
      }
    }
  });

  it('an inspection that went through JSON (e.g. job data), even without `fields`, reads the same', async () => {
    const { inspectCsv: inspect } = await import('../../src/sources/csv/index.ts');
    const text = 'Event Name,Event Start Date,Notes\nA,03/25/2024,x\nB,03/26/2024,y\n';
    const o = opts();
    const inspection = await inspect(bytesOpen(text), o);
    const plain = JSON.parse(JSON.stringify(inspection));
    delete plain.fields;
    const items = [];
    for await (const i of readCsv(bytesOpen(text), o, plain)) items.push(i);
    expect(items.map((i) => (i.result.ok ? (i.result.draft as { start_date: string }).start_date : i.result.failure.reason))).toEqual([
      '2024-03-25 00:00:00',
      '2024-03-26 00:00:00',
    ]);
  });
});
