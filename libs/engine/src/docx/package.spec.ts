import PizZip from 'pizzip';
import { crc32 } from 'node:zlib';
import type { TypedError } from '@app/contracts';
import { buildDocx, p } from '../../../../test/support/docx-builder';
import { docxText } from '../../../../test/support/docx-text';
import {
  deflated,
  entriesOf,
  lyingZipBomb,
  writeZip as writeTestZip,
} from '../../../../test/support/hostile-zip';
import { InvalidTemplateError } from '../errors';
import { renderDocx } from '../render';
import { checkDocxTemplate, openDocxPackage } from './package';
import { METHOD_DEFLATE, METHOD_STORE, writeZip } from './zip-writer';

const DEFLATE = '\x08\x00';
const STORE = '\x00\x00';

interface Stored {
  method: string;
  compressed: Buffer;
}

/** Each entry's compression method and compressed bytes, as the archive holds them. */
function storedEntries(zipBytes: Buffer): Map<string, Stored> {
  const zip = new PizZip(zipBytes);
  const out = new Map<string, Stored>();
  for (const [name, file] of Object.entries(zip.files)) {
    const data = (
      file as unknown as { _data: { compressionMethod: string; getCompressedContent(): Uint8Array } }
    )._data;
    if (file.dir) continue;
    out.set(name, { method: data.compressionMethod, compressed: Buffer.from(data.getCompressedContent()) });
  }
  return out;
}

function caught(fn: () => unknown): TypedError {
  try {
    fn();
  } catch (e) {
    return e as TypedError;
  }
  throw new Error('expected an error');
}

/** A template with a large styles part that has no tags, and a footer without tags. */
function template(): Buffer {
  const base = buildDocx({ body: [p('Hello {{ name }}')], footer: ['Page footer'] });
  const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">${'<w:style w:type="paragraph" w:styleId="S"/>'.repeat(2000)}</w:styles>`;
  return writeTestZip([
    ...entriesOf(base).filter((e) => e.name !== 'word/styles.xml'),
    deflated('word/styles.xml', styles),
  ]);
}

describe('the filled package', () => {
  it('copies every part the fill did not change with its original compressed bytes', () => {
    const tpl = template();
    const out = renderDocx(tpl, { template_data: { name: 'Ada' } });
    const before = storedEntries(tpl);
    const after = storedEntries(out);
    expect(docxText(out).body).toEqual(['Hello Ada']);
    const copied = [...after].filter(([name, e]) => before.get(name)?.compressed.equals(e.compressed));
    const copiedNames = copied.map(([name]) => name);
    // The footer is parsed and written back by docxtemplater, unchanged: still the same bytes.
    expect(copiedNames).toEqual(expect.arrayContaining(['word/styles.xml', 'word/footer1.xml']));
    expect(copiedNames).not.toContain('word/document.xml');
    // Every entry reads back with a matching CRC.
    expect(() => new PizZip(out, { checkCRC32: true })).not.toThrow();
  });

  it('stores changed parts uncompressed for a converter, deflates them for callers', () => {
    const tpl = template();
    const forConverter = storedEntries(
      renderDocx(tpl, { template_data: { name: 'Ada' } }, { compression: 'STORE' }),
    );
    const forCaller = storedEntries(renderDocx(tpl, { template_data: { name: 'Ada' } }));
    expect(forConverter.get('word/document.xml')!.method).toBe(STORE);
    expect(forCaller.get('word/document.xml')!.method).toBe(DEFLATE);
    // Untouched parts stay deflated either way: copying costs less than inflating them.
    expect(forConverter.get('word/styles.xml')!.method).toBe(DEFLATE);
  });

  it('stores PNG media as is: it is compressed already', () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const out = renderDocx(buildDocx([p('{{ logo }}')]), {
      template_data: {},
      images: { logo: { data: png.toString('base64'), width_px: 1 } },
    });
    const media = [...storedEntries(out)].filter(([name]) => name.startsWith('word/media/'));
    expect(media).toHaveLength(1);
    expect(media[0][1].method).toBe(STORE);
    expect(media[0][1].compressed.equals(png)).toBe(true);
  });

  it('keeps the bound on inflation when the template was checked before (templateChecked)', () => {
    const e = caught(() =>
      renderDocx(lyingZipBomb('word/document.xml', 50e6), { template_data: {} }, { templateChecked: true }),
    );
    expect(e).toBeInstanceOf(InvalidTemplateError);
    expect(e.message).toContain('holds more than the 1024 bytes it declares');
  });

  it('still refuses macros when the template was checked before', () => {
    const vba = writeTestZip([
      ...entriesOf(buildDocx([p('x')])),
      deflated('word/vbaProject.bin', Buffer.from('Attribute VB_Name = "x"')),
    ]);
    expect(
      caught(() => renderDocx(vba, { template_data: {} }, { templateChecked: true })).details,
    ).toMatchObject({ reason: 'macros' });
  });

  it('refuses a part it reads whose CRC does not match', () => {
    const entries = entriesOf(buildDocx([p('x')])).map((e) =>
      e.name === 'word/document.xml' ? { ...e, crc: (e.crc + 1) >>> 0 } : e,
    );
    const e = caught(() => checkDocxTemplate(writeTestZip(entries)));
    expect(e).toBeInstanceOf(InvalidTemplateError);
    expect(e.details).toMatchObject({ reason: 'corrupt_zip', part: 'word/document.xml' });
  });

  it('reads a part once, whoever asks (the checks, docxtemplater)', () => {
    const pkg = openDocxPackage(template());
    const first = pkg.read('word/styles.xml');
    expect(pkg.read('word/styles.xml')).toBe(first);
    expect(pkg.zip.file('word/styles.xml')!.asText()).toBe(first.toString('utf8'));
  });
});

describe('writeZip', () => {
  it('writes raw, deflated, stored and directory entries that a zip reader accepts', () => {
    const text = Buffer.from('Grüße, '.repeat(100));
    const raw = deflated('raw.xml', text);
    const zip = writeZip([
      { name: 'dir/', directory: true },
      {
        name: 'raw.xml',
        method: METHOD_DEFLATE,
        compressed: raw.data,
        crc32: raw.crc,
        uncompressedSize: text.length,
      },
      { name: 'deflated.xml', content: text, method: METHOD_DEFLATE },
      { name: 'stored/ünïcode.bin', content: text, method: METHOD_STORE },
      { name: 'empty.xml', content: Buffer.alloc(0), method: METHOD_DEFLATE },
    ]);
    const read = new PizZip(zip, { checkCRC32: true });
    expect(Object.keys(read.files)).toEqual([
      'dir/',
      'raw.xml',
      'deflated.xml',
      'stored/ünïcode.bin',
      'empty.xml',
    ]);
    expect(read.files['dir/'].dir).toBe(true);
    for (const name of ['raw.xml', 'deflated.xml', 'stored/ünïcode.bin'])
      expect(Buffer.from(read.file(name)!.asUint8Array()).equals(text)).toBe(true);
    expect(read.file('empty.xml')!.asText()).toBe('');
    const stored = storedEntries(zip);
    expect(stored.get('raw.xml')!.compressed.equals(raw.data)).toBe(true);
    expect(stored.get('deflated.xml')!.method).toBe(DEFLATE);
    expect(stored.get('stored/ünïcode.bin')!.method).toBe(STORE);
    expect(crc32(text)).toBe(raw.crc);
  });
});

describe('looking a part up by name in an opened package', () => {
  it('answers as pizzip does: a copy of the entry, null for a folder or a missing name', () => {
    const bytes = buildDocx({ body: [p('Hello {{ name }}')], footer: ['Page footer'] });
    const plain = new PizZip(bytes);
    const { zip } = openDocxPackage(bytes);
    for (const name of Object.keys(plain.files)) {
      const ours = zip.file(name);
      const theirs = plain.file(name);
      if (!theirs) {
        expect(ours).toBeNull();
        continue;
      }
      expect(ours).not.toBeNull();
      expect(ours!.name).toBe(theirs.name);
      expect(ours!.asText()).toBe(theirs.asText());
      // A copy, as pizzip hands out: changing it leaves the package alone.
      expect(ours).not.toBe(zip.files[name]);
      ours!.name = 'renamed.xml';
      expect(zip.files[name].name).toBe(name);
    }
    for (const missing of ['word/nothing.xml', '__proto__', 'constructor', 'toString'])
      expect(zip.file(missing)).toBeNull();
    // Search by pattern and writing still take pizzip's own path.
    expect(zip.file(/\.rels$/).length).toBe(plain.file(/\.rels$/).length);
    zip.file('word/added.xml', '<x/>');
    expect(zip.file('word/added.xml')!.asText()).toBe('<x/>');
  });
});
