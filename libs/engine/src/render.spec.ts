import PizZip from 'pizzip';
import { httpStatusOf, type TypedError } from '@app/contracts';
import { PNG } from 'pngjs';
import { crc32 } from 'node:zlib';
import {
  buildDocx,
  messy,
  p,
  table,
  SPLIT as S,
  type BlockSpec,
  type DocxSpec,
} from '../../../test/support/docx-builder';
import { docxImages, docxText } from '../../../test/support/docx-text';
import {
  ImageProcessingError,
  InvalidTemplateError,
  PayloadTooLargeError,
  TemplateRuntimeError,
  TemplateSyntaxError,
  UndefinedVariableError,
} from './errors';
import { renderDocx, type RenderOptions } from './render';
import { lyingZipBomb, withPart, xmlVolumeBomb } from '../../../test/support/hostile-zip';
import { badZlibChecksum, garbageIdat, noise } from '../../../test/support/hostile-png';

type Data = Record<string, unknown>;

function render(
  spec: DocxSpec | BlockSpec[],
  data: Data,
  extra: { images?: Data; options?: RenderOptions } = {},
): Buffer {
  return renderDocx(buildDocx(spec), { template_data: data, images: extra.images as never }, extra.options);
}
function body(spec: DocxSpec | BlockSpec[], data: Data = {}, options?: RenderOptions): string[] {
  return docxText(render(spec, data, { options })).body;
}
function documentXml(docx: Buffer, part = 'word/document.xml'): string {
  return new PizZip(docx).file(part)!.asText();
}
function caught(fn: () => unknown): TypedError {
  try {
    fn();
  } catch (e) {
    return e as TypedError;
  }
  throw new Error('expected an error');
}

/** A real PNG of the given pixel size, optionally with a pHYs chunk (dots per inch). */
function png(width: number, height: number, dpi?: number): Buffer {
  const img = new PNG({ width, height });
  img.data.fill(128);
  const buf = PNG.sync.write(img);
  if (!dpi) return buf;
  const ppm = Math.round(dpi / 0.0254);
  const data = Buffer.alloc(9);
  data.writeUInt32BE(ppm, 0);
  data.writeUInt32BE(ppm, 4);
  data[8] = 1;
  const type = Buffer.from('pHYs', 'latin1');
  const chunk = Buffer.concat([Buffer.alloc(4), type, data, Buffer.alloc(4)]);
  chunk.writeUInt32BE(9, 0);
  chunk.writeUInt32BE(crc32(Buffer.concat([type, data])) >>> 0, 17);
  return Buffer.concat([buf.subarray(0, 33), chunk, buf.subarray(33)]); // after IHDR
}
const b64 = (buf: Buffer) => buf.toString('base64');
const MM = 36000;

describe('1. {{ expr }} wherever text can be, however Word split it', () => {
  it('fills tags split across runs with formatting, spell-check marks and bookmarks', () => {
    expect(
      body([messy(`Dear {{ cus${S}tomer.na${S}me }}, you owe {${S}{ total }${S}}.`)], {
        customer: { name: 'Ann' },
        total: 5,
      }),
    ).toEqual(['Dear Ann, you owe 5.']);
  });

  it('fills tables, headers, footers, footnotes and text boxes', () => {
    const out = render(
      {
        body: [
          table([['{{ a }}', messy(`{{ b${S} }}`)]]),
          { runs: ['Note', { footnote: [p('Footnote {{ a }}')] }] },
          { runs: [{ textBox: [p('Box {{ b }}')], fallback: true }] },
        ],
        header: [p('Head {{ a }}')],
        footer: [messy(`Foot {{ ${S}b }}`)],
      },
      { a: 'A', b: 'B' },
    );
    const text = docxText(out);
    expect(text.body).toEqual(expect.arrayContaining(['A | B']));
    expect(text.body.join('\n')).toContain('Box B');
    expect(text.body.join('\n')).not.toContain('{{');
    expect(text.headers).toEqual([['Head A']]);
    expect(text.footers).toEqual([['Foot B']]);
    expect(text.footnotes).toEqual(['Footnote A']);
  });

  it('joins a tag Word split across paragraphs into the first, as docxtpl does (issue 34)', () => {
    const doc = render(
      {
        header: [p('Ref {{ re'), p('f }}')],
        body: [
          table([
            ['{%tr for item in items %}', ''],
            [[p('{{ item.sa'), p('}} kg', { style: 'Heading2' })], '{{ item.n }}'],
            ['{%tr endfor %}', ''],
          ]),
          p('Total: {{ to', { style: 'Heading1' }),
          p(''),
          p('tal }} EUR'),
        ],
      },
      {
        ref: 'R1',
        total: 9,
        items: [
          { sa: 'A', n: 1 },
          { sa: 'B', n: 2 },
        ],
      },
    );
    expect(docxText(doc).body).toEqual(['A kg | 1', 'B kg | 2', 'Total: 9 EUR']);
    expect(docxText(doc).headers).toEqual([['Ref R1']]);
    // The first paragraph's properties: the split cell's paragraph has none, the total's Heading1.
    expect(documentXml(doc)).not.toContain('Heading2');
    expect(documentXml(doc)).toMatch(/<w:pStyle w:val="Heading1"\/>(?:(?!<\/w:p>).)*Total: 9 EUR/);
  });

  it('refuses a tag split across table cells, whose join would drop a cell', () => {
    const e = caught(() => render([table([['{{ a', '}}']])], { a: 1 }));
    expect(e).toBeInstanceOf(TemplateSyntaxError);
    expect((e as TemplateSyntaxError).problems.map((x) => [x.tag, x.message])).toEqual([
      ['{{ a', 'tag is split across table cells (docxtpl would join the cells and drop one from the row)'],
    ]);
  });

  it('leaves lone braces and non-Jinja text alone', () => {
    expect(body(['Set {a} and {b}, 50% off, #1 } {', '{ {x} }'], {})).toEqual([
      'Set {a} and {b}, 50% off, #1 } {',
      '{ {x} }',
    ]);
  });
});

describe('2. blocks, loops and access', () => {
  it('chooses if / elif / else branches', () => {
    const tpl = ['{% if n > 10 %}big{% elif n > 5 %}medium{% else %}small{% endif %}'];
    expect(body(tpl, { n: 20 })).toEqual(['big']);
    expect(body(tpl, { n: 7 })).toEqual(['medium']);
    expect(body(tpl, { n: 1 })).toEqual(['small']);
  });

  it('loops with loop.index, index0, first, last, length and an else branch', () => {
    const tpl = [
      '{% for x in xs %}{{ loop.index }}/{{ loop.length }}:{{ x }}{% if loop.first %}(first){% endif %}{% if loop.last %}(last){% else %}, {% endif %}{% else %}none{% endfor %}',
      '{% for x in xs %}{{ loop.index0 }}{% endfor %}',
    ];
    expect(body(tpl, { xs: ['a', 'b', 'c'] })).toEqual(['1/3:a(first), 2/3:b, 3/3:c(last)', '012']);
    expect(body(tpl, { xs: [] })).toEqual(['none', '']);
  });

  it('nests loops, unpacks dict items, and reads by dot and bracket', () => {
    const tpl = [
      '{%p for g in groups %}',
      '{{ g.name }}: {% for i in g["items"] %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}',
      '{%p endfor %}',
      '{% for k, v in totals.items() %}{{ k }}={{ v }};{% endfor %}',
      "{{ row['a b'] }} {{ xs[0] }} {{ xs[-1] }}",
    ];
    const data = {
      groups: [
        { name: 'G1', items: [1, 2] },
        { name: 'G2', items: [3] },
      ],
      totals: { net: 10, vat: 2 },
      row: { 'a b': 'spaced' },
      xs: [7, 8, 9],
    };
    expect(body(tpl, data)).toEqual(['G1: 1,2', 'G2: 3', 'net=10;vat=2;', 'spaced 7 9']);
  });

  it('supports set and loop filters', () => {
    expect(
      body(['{% set total = xs|sum %}{% for x in xs if x > 1 %}{{ x }}{% endfor %} of {{ total }}'], {
        xs: [1, 2, 3],
      }),
    ).toEqual(['23 of 6']);
  });
});

describe('4. docxtpl placement prefixes and whitespace control', () => {
  it('{%p %} removes its paragraph, the body repeats', () => {
    expect(
      body(['before', '{%p for x in xs %}', 'item {{ x }}', '{%p endfor %}', 'after'], { xs: [1, 2] }),
    ).toEqual(['before', 'item 1', 'item 2', 'after']);
  });

  it('a plain block tag alone in its paragraph leaves that paragraph, empty, as docxtpl does', () => {
    expect(
      body(
        [
          'before',
          '{% if show %}',
          'shown',
          '{% endif %}',
          ' {% for x in xs %} ',
          '{{ x }}',
          '{% endfor %}',
          'after',
        ],
        { show: false, xs: ['a'] },
      ),
    ).toEqual(['before', '', '  ', 'a', '', 'after']);
  });

  it('{%tr %} repeats table rows and removes the tag rows', () => {
    const tpl = [
      table([
        ['Name', 'Qty'],
        ['{%tr for i in items %}', ''],
        ['{{ i.name }}', '{{ i.qty }}'],
        ['{%tr endfor %}', ''],
        ['Total', '{{ items|sum(attribute="qty") }}'],
      ]),
    ];
    expect(
      body(tpl, {
        items: [
          { name: 'Pen', qty: 2 },
          { name: 'Ink', qty: 1 },
        ],
      }),
    ).toEqual(['Name | Qty', 'Pen | 2', 'Ink | 1', 'Total | 3']);
  });

  it('{%tc %} repeats table cells (column loops)', () => {
    const tpl = [table([['Month', '{%tc for m in months %}', '{{ m }}', '{%tc endfor %}']])];
    expect(body(tpl, { months: ['Jan', 'Feb', 'Mar'] })).toEqual(['Month | Jan | Feb | Mar']);
  });

  it('{%r %} and inline blocks keep the text around them', () => {
    expect(
      body(
        [
          {
            runs: [
              'Status: ',
              '{%r if paid %}',
              { text: 'PAID', bold: true },
              '{%r else %}',
              'OPEN',
              '{%r endif %}',
              '.',
            ],
          },
        ],
        { paid: true },
      ),
    ).toEqual(['Status: PAID.']);
  });

  it('comments render nothing; {#p #} removes its paragraph', () => {
    expect(body(['A{# note #}B', '{#p whole paragraph #}', messy(`C{${S}# split #${S}}D`)])).toEqual([
      'AB',
      'CD',
    ]);
  });

  it('{%- and -%} strip whitespace beside the tag', () => {
    expect(body(['x  {%- if t -%}  y  {%- endif -%}  z'], { t: true })).toEqual(['xyz']);
  });
});

describe('5. values as text', () => {
  it('escapes XML and turns \\n into a line break and \\t into a tab', () => {
    const out = render(['{{ v }}|{{ w }}'], { v: 'A & B <c> "d"', w: 'line1\nline2\tcol' });
    expect(docxText(out).body).toEqual(['A & B <c> "d"|line1\nline2\tcol']);
    const xml = documentXml(out);
    expect(xml).toContain('A &amp; B &lt;c&gt;');
    expect(xml).toMatch(/line1<\/w:t><w:br\/><w:t xml:space="preserve">line2<\/w:t><w:tab\/>/);
  });

  it('drops characters XML cannot hold instead of breaking the document', () => {
    expect(body(['{{ v }}'], { v: 'a\u0000b\u0001c\uffff\ud800d' })).toEqual(['abcd']);
  });

  it('prints numbers, booleans and None as Python does', () => {
    expect(
      body(['{{ a }} {{ b }} {{ c }} {{ d }} {{ e / 2 }}'], { a: 3, b: 2.5, c: true, d: null, e: 4 }),
    ).toEqual(['3 2.5 True None 2.0']);
  });
});

describe('6. undefined variables', () => {
  it('render empty by default', () => {
    expect(body(['[{{ missing }}][{{ missing.deep[0] }}][{% for x in nope %}x{% endfor %}]'])).toEqual([
      '[][][]',
    ]);
  });

  it('in strict mode, one error names every undefined variable', () => {
    const e = caught(() =>
      render(
        ['{{ a }} {{ b.c }} {{ a }}', '{% if d %}{% endif %}{{ e|default("ok") }}', '{{ known }}'],
        { known: 1 },
        { options: { undefined: 'strict' } },
      ),
    );
    expect(e).toBeInstanceOf(UndefinedVariableError);
    expect(e.errorType).toBe('undefined_variable');
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(e.details).toEqual({ variables: ['a', 'b.c', 'd'] });
  });
});

describe('6b. failures caused by undefined values', () => {
  it('strict mode reports them as undefined variables, not as the failure they caused', () => {
    const e = caught(() =>
      render(['{{ "%.2f"|format(total) }} {{ n + 1 }}'], {}, { options: { undefined: 'strict' } }),
    );
    expect(e).toBeInstanceOf(UndefinedVariableError);
    expect(e.details).toEqual({ variables: ['total', 'n'] });
  });

  it('empty mode names the undefined value in the runtime error', () => {
    const e = caught(() => render(['{{ "%.2f"|format(total) }}'], {}));
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(e.message).toContain('(undefined: total)');
  });
});

describe('7. images', () => {
  const logo = png(200, 100);

  it('places an image by variable name, sized in millimetres with the aspect ratio kept', () => {
    const out = render(
      ['Logo: {{ logo }}'],
      { logo: 'logo' },
      { images: { logo: { data: b64(logo), width_mm: 40 } } },
    );
    const [img] = docxImages(out);
    expect(img).toMatchObject({ part: 'word/document.xml', exists: true, cx: 40 * MM, cy: 20 * MM });
    expect(docxText(out).body).toEqual(['Logo: ']);
    expect(new PizZip(out).file('[Content_Types].xml')!.asText()).toMatch(/Extension="png"/);
  });

  it('sizes: mm wins over px, px at 96 DPI, pHYs DPI, else 96 DPI', () => {
    const images = {
      both: { data: b64(logo), width_mm: 50, height_mm: 10, width_px: 999 },
      px: { data: b64(logo), height_px: 96 },
      phys: { data: b64(png(300, 150, 300)) },
      plain: { data: b64(png(96, 48)) },
    };
    const out = render(['{{ both }}{{ px }}{{ phys }}{{ plain }}'], {}, { images });
    const sizes = docxImages(out).map((i) => [i.cx, i.cy]);
    const expected = [
      [50 * MM, 10 * MM],
      [50.8 * MM, 25.4 * MM],
      [25.4 * MM, 12.7 * MM], // 300 px at 300 DPI; pHYs keeps whole pixels per metre, hence the tolerance
      [25.4 * MM, 12.7 * MM],
    ];
    expect(sizes).toHaveLength(4);
    sizes.forEach(([cx, cy], i) => {
      expect(Math.abs(cx - expected[i][0])).toBeLessThanOrEqual(5);
      expect(Math.abs(cy - expected[i][1])).toBeLessThanOrEqual(5);
    });
  });

  it('places one image per loop item with | image, in tables, headers and footers', () => {
    const images = { a: { data: b64(logo), width_mm: 10 }, b: { data: b64(png(10, 10)), width_mm: 5 } };
    const out = render(
      {
        body: [
          table([['{%tr for row in rows %}'], ['{{ row.label }} {{ row.pic | image }}'], ['{%tr endfor %}']]),
        ],
        header: [p('{{ a }}')],
        footer: [p('{{ "b" | image }}')],
      },
      {
        rows: [
          { label: 'one', pic: 'a' },
          { label: 'two', pic: 'b' },
        ],
      },
      { images },
    );
    const imgs = docxImages(out);
    expect(imgs.map((i) => [i.part, i.cx])).toEqual([
      ['word/document.xml', 10 * MM],
      ['word/document.xml', 5 * MM],
      ['word/header1.xml', 10 * MM],
      ['word/footer1.xml', 5 * MM],
    ]);
    expect(imgs.every((i) => i.exists)).toBe(true);
    expect(new Set(imgs.map((i) => i.docPrId)).size).toBe(4);
    expect(docxText(out).body).toEqual(['one ', 'two ']);
  });

  it('tolerates a data:image/png;base64, prefix and refuses other data URLs', () => {
    expect(
      docxImages(render(['{{ x }}'], {}, { images: { x: { data: `data:image/png;base64,${b64(logo)}` } } })),
    ).toHaveLength(1);
    const e = caught(() =>
      render(['{{ x }}'], {}, { images: { x: { data: `data:image/jpeg;base64,${b64(logo)}` } } }),
    );
    expect(e).toBeInstanceOf(ImageProcessingError);
    expect(e.details).toMatchObject({ image_name: 'x', error_class: 'UnsupportedDataUrl' });
  });

  const corruptCrc = Buffer.from(logo);
  corruptCrc[30] ^= 0xff; // inside IHDR's CRC
  const truncated = logo.subarray(0, logo.length - 20);
  it.each([
    ['not base64', 'not base64 at all!', 'Base64DecodeError'],
    ['bad padding', 'iVBORw0KGgo=A', 'Base64DecodeError'],
    ['not a PNG', b64(Buffer.from('GIF89a this is a gif')), 'InvalidPngSignature'],
    ['a CRC error', b64(corruptCrc), 'PngCrcError'],
    ['a truncated PNG', b64(truncated), 'TruncatedPng'],
  ])('refuses %s with image_processing_error and the spec details', (_what, data, errorClass) => {
    const e = caught(() => render(['{{ pic }}'], {}, { images: { pic: { data } } }));
    expect(e).toBeInstanceOf(ImageProcessingError);
    expect(e.errorType).toBe('image_processing_error');
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(Object.keys(e.details).sort()).toEqual(['error', 'error_class', 'image_name', 'suggestion']);
    expect(e.details).toMatchObject({ image_name: 'pic', error_class: errorClass });
    expect(e.message).toContain("'pic'");
  });

  it.each([
    ['a zlib stream that fails its checksum', badZlibChecksum()],
    ['image data that is not zlib at all', garbageIdat()],
  ])('refuses %s (chunk CRCs valid) with PngDecodeError', (_what, bytes) => {
    const e = caught(() => render(['{{ pic }}'], {}, { images: { pic: { data: b64(bytes) } } }));
    expect(e.details).toMatchObject({ image_name: 'pic', error_class: 'PngDecodeError' });
  });

  it('accepts a large valid PNG whose base64 is millions of characters long', () => {
    const big = noise(1100, 1100);
    expect(b64(big).length).toBeGreaterThan(4_800_000);
    expect(
      docxImages(render(['{{ pic }}'], {}, { images: { pic: { data: b64(big), width_mm: 50 } } })),
    ).toHaveLength(1);
  });

  it('imagesVerified skips only the pixel decode the API already did', () => {
    const corruptPixels = { pic: { data: b64(badZlibChecksum()) } };
    expect(caught(() => render(['{{ pic }}'], {}, { images: corruptPixels })).details).toMatchObject({
      error_class: 'PngDecodeError',
    });
    // What the worker does after the API's check: sizes and headers only.
    expect(
      docxImages(render(['{{ pic }}'], {}, { images: corruptPixels, options: { imagesVerified: true } })),
    ).toHaveLength(1);
    // Everything cheaper than the decode is still checked.
    const badCrc = Buffer.from(png(4, 4));
    badCrc[30] ^= 0xff;
    const e = caught(() =>
      render(
        ['{{ pic }}'],
        {},
        { images: { pic: { data: b64(badCrc) } }, options: { imagesVerified: true } },
      ),
    );
    expect(e.details).toMatchObject({ error_class: 'PngCrcError' });
  });

  it('an image named __proto__ is checked like any other', () => {
    const images = JSON.parse(`{"__proto__": {"data": "not base64!"}}`);
    const e = caught(() => render(['x'], {}, { images }));
    expect(e.details).toMatchObject({ image_name: '__proto__', error_class: 'Base64DecodeError' });
  });

  it('refuses a PNG that claims 100k × 100k pixels without decoding it', () => {
    const bomb = Buffer.from(png(1, 1));
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)) >>> 0, 29);
    const e = caught(() => render(['{{ pic }}'], {}, { images: { pic: { data: b64(bomb) } } }));
    expect(e.details).toMatchObject({ error_class: 'ImageTooLarge' });
  });

  it('refuses images over the byte and count limits with payload_too_large', () => {
    const big = caught(() =>
      render(
        ['x'],
        {},
        { images: { a: { data: b64(logo) } }, options: { imageLimits: { maxImageBytes: 10 } } },
      ),
    );
    expect(big).toBeInstanceOf(PayloadTooLargeError);
    const many = caught(() =>
      render(
        ['x'],
        {},
        {
          images: { a: { data: b64(logo) }, b: { data: b64(logo) } },
          options: { imageLimits: { maxImages: 1 } },
        },
      ),
    );
    expect(many.errorType).toBe('payload_too_large');
  });

  it('| image with a name not in images is a runtime error naming it', () => {
    const e = caught(() => render(['{{ "nope" | image }}'], {}, { images: { a: { data: b64(logo) } } }));
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(e.message).toContain("no image named 'nope'");
  });
});

describe('8. safety', () => {
  it.each([
    "{{ ''.constructor.constructor('return process')() }}",
    '{{ cycler.__init__.__globals__.os.popen("id").read() }}',
    '{{ constructor.constructor("return this")().process.exit(1) }}',
    '{{ x.__proto__ }}{{ x["__proto__"] }}{{ x.constructor }}',
    '{{ self._TemplateReference__context }}',
  ])('%s reaches nothing', (tag) => {
    let out: string[];
    try {
      out = body([tag], { x: {} });
    } catch (e) {
      expect(e).toBeInstanceOf(TemplateRuntimeError);
      return;
    }
    expect(out.join('')).not.toMatch(/function|native|object|process/i);
  });

  it('__proto__ keys in data pollute nothing', () => {
    const data = JSON.parse('{"__proto__": {"isAdmin": true}, "a": {"__proto__": {"x": 1}}}');
    expect(body(['{{ a.x }}|{{ isAdmin }}'], data)).toEqual(['|']);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it.each([
    ["{{ 'x'|center(100000000) }}", 'longer than'],
    ["{{ '%.100000000f'|format(1) }}", 'precision 100000000 is larger than 100'],
    ["{{ '{:>99999999}'.format(1) }}", 'width 99999999 is larger than 10000'],
    ["{{ '-'.zfill(2000000000) }}", 'zfill width'],
    ["{{ xs|join('-' * 999999) }}", 'longer than'],
    ["{{ ('ab' * 400000)|replace('a', 'x' * 100) }}", 'longer than'],
  ])('%s is a runtime error, not a hang or a crash', (tag, message) => {
    const e = caught(() => render([tag], { xs: Array.from({ length: 10 }, (_v, i) => i) }));
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(e.message).toContain(message);
  });

  it('data nested too deep to print is a runtime error, not a crash', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const e = caught(() => render(['{{ deep }}'], { deep }));
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(e.message).toContain('too large or too deeply nested');
  });

  it.each([
    ['{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}', 'macro calls nest more than 64 deep'],
    ['{% macro f() %}{{ f() }}{{ f() }}{% endmacro %}{{ f() }}', 'macro calls nest more than 64 deep'],
    [
      '{% macro f(n) %}{% if n < 40 %}{{ f(n + 1) }}{{ f(n + 1) }}{% endif %}{% endmacro %}{{ f(0) }}',
      'loop iterations',
    ],
    ['{% for n in deep recursive %}{{ loop(n.kids) }}{% endfor %}', 'more than 64 levels deep'],
    [
      '{% set ns = namespace(x="ab") %}{% for i in range(40) %}{% set ns.x = ns.x ~ ns.x %}{% endfor %}',
      'longer than',
    ],
    ['{% set ns = 1 %}{% set ns.x = 2 %}', 'non-namespace object'],
    ['{% for x in xs %}{{ loop(xs) }}{% endfor %}', "marked 'recursive'"],
    ['{% call undefined_macro() %}x{% endcall %}', "'call' needs a macro"],
  ])('%s is bounded: a runtime error naming the tag', (tag, message) => {
    let deep: unknown = [];
    for (let i = 0; i < 100; i++) deep = [{ kids: deep }];
    const e = caught(() => render([tag], { deep, xs: [1] }, { options: { maxLoopIterations: 2000 } }));
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(e.message).toContain(message);
    expect(e.details).toMatchObject({ tag: expect.stringMatching(/^\{[{%]/), context: expect.any(String) });
  });

  it.each([
    '{{ namespace.__init__ }}{{ namespace(a=1).__class__ }}',
    '{{ dict.constructor }}{{ dict(a=1).constructor }}',
    '{% macro m() %}x{% endmacro %}{{ m.__globals__ }}{{ m.constructor }}{{ caller }}',
    '{{ cycler(1).__init__ }}{{ joiner().__globals__ }}',
    '{% for x in xs %}{{ loop.changed.constructor }}{{ loop.__class__ }}{% endfor %}',
  ])('%s: the new globals and objects reach nothing', (tag) => {
    const out = body([tag], { xs: [1] });
    expect(out.join('')).not.toMatch(/native|process|prototype|\[object/i);
  });

  it('caps loop output', () => {
    const e = caught(() =>
      render(
        ['{% for i in xs %}{% for j in xs %}.{% endfor %}{% endfor %}'],
        { xs: Array.from({ length: 100 }, (_v, i) => i) },
        { options: { maxLoopIterations: 1000 } },
      ),
    );
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(e.message).toContain('loop iterations');
  });
});

describe('typed errors', () => {
  it('an end tag with nothing open is reported', () => {
    const e = caught(() => render(['x {% endfor %}'], {})) as TemplateSyntaxError;
    expect(e.problems.map((x) => x.message)).toEqual(["'endfor' without an open 'for'"]);
  });

  it('template_syntax_error lists every error at once, each with its tag and context', () => {
    const e = caught(() =>
      render(
        {
          body: ['Total: {{ total | bogus }} EUR', 'Hi {{ name }', '{% if x %}never closed', '{% endfor %}'],
          header: [p('{{ a + }}')],
        },
        {},
      ),
    );
    expect(e).toBeInstanceOf(TemplateSyntaxError);
    expect(httpStatusOf(e.errorType)).toBe(422);
    const problems = (e as TemplateSyntaxError).problems;
    expect(problems.map((x) => [x.part, x.tag, x.message])).toEqual(
      expect.arrayContaining([
        ['word/document.xml', '{{ total | bogus }}', "unknown filter 'bogus'"],
        ['word/document.xml', '{{ name }', 'tag is not closed before the end of its paragraph'],
        [
          'word/document.xml',
          '{% endfor %}',
          "'endfor' where the 'if' opened by {% if x %} should end first",
        ],
        ['word/document.xml', '{% if x %}', "'if' has no 'endif'"],
        ['word/header1.xml', '{{ a + }}', 'the tag ends too early'],
      ]),
    );
    expect(problems).toHaveLength(5);
    expect(problems.find((x) => x.tag === '{{ total | bogus }}')!.context).toBe(
      'Total: {{ total | bogus }} EUR',
    );
  });

  it('refuses a block whose ends sit in unrelated document structure', () => {
    const e = caught(() => render([table([['{% if x %}', 'a']]), 'after {% endif %}'], { x: true }));
    expect(e).toBeInstanceOf(TemplateSyntaxError);
    expect(e.message).toContain('different parts of the document structure');
  });

  it('template_runtime_error names the tag', () => {
    const e = caught(() => render(['Sum: {{ a / b }}'], { a: 1, b: 0 }));
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(e.details).toMatchObject({ tag: '{{ a / b }}', part: 'word/document.xml' });
    expect(e.message).toBe('division by zero in {{ a / b }}');
  });

  it.each([
    ['a PDF', Buffer.from('%PDF-1.7 not a docx')],
    ['an empty file', Buffer.alloc(0)],
    ['a zip without Word parts', new PizZip().file('hello.txt', 'hi').generate({ type: 'nodebuffer' })],
    ['a truncated docx', buildDocx(['x']).subarray(0, 200)],
  ])('invalid_template for %s, judged by content', (_what, file) => {
    const e = caught(() => renderDocx(file, { template_data: {} }));
    expect(e).toBeInstanceOf(InvalidTemplateError);
    expect(e.errorType).toBe('invalid_template');
    expect(httpStatusOf(e.errorType)).toBe(400);
  });

  it('tags that need other templates or Jinja extensions are syntax errors that say so', () => {
    const e = caught(() => render(['{% include "other.docx" %}', '{% break %}', '{{ s|urlize }}'], {}));
    expect(e).toBeInstanceOf(TemplateSyntaxError);
    expect((e as TemplateSyntaxError).problems.map((x) => x.message)).toEqual([
      "'include' is not supported: a template renders on its own: there are no other templates to include",
      "'break' is not supported: 'break' needs Jinja's loopcontrols extension, which docxtpl does not enable",
      "the filter 'urlize' makes HTML links, which a Word document cannot hold",
    ]);
  });

  it('unclosed new blocks name their opening tag', () => {
    const e = caught(() => render(['{% raw %}x', '{% macro m() %}y', '{% with a = 1 %}'], {}));
    expect(e).toBeInstanceOf(TemplateSyntaxError);
    expect((e as TemplateSyntaxError).problems.map((x) => [x.tag, x.message])).toEqual([
      ['{% raw %}', "'raw' has no 'endraw'"],
    ]);
    const f = caught(() => render(['{% macro m() %}y', '{% with a = 1 %}z'], {}));
    expect((f as TemplateSyntaxError).problems.map((x) => [x.tag, x.message])).toEqual([
      ['{% with a = 1 %}', "'with' has no 'endwith'"],
      ['{% macro m() %}', "'macro' has no 'endmacro'"],
    ]);
  });

  it('invalid_template for macros, malformed XML and DTDs', () => {
    const zip = new PizZip(buildDocx(['x']));
    const ct = zip.file('[Content_Types].xml')!.asText();
    const docm = new PizZip(buildDocx(['x']));
    docm.file(
      '[Content_Types].xml',
      ct.replace(
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
        'application/vnd.ms-word.document.macroEnabled.main+xml',
      ),
    );
    expect(
      caught(() => renderDocx(docm.generate({ type: 'nodebuffer' }), { template_data: {} })).details,
    ).toMatchObject({ reason: 'macros' });
    const vba = new PizZip(buildDocx(['x']));
    vba.file('word/vbaProject.bin', Buffer.from('macro'));
    expect(
      caught(() => renderDocx(vba.generate({ type: 'nodebuffer' }), { template_data: {} })).details,
    ).toMatchObject({ reason: 'macros' });

    const broken = new PizZip(buildDocx(['x']));
    broken.file(
      'word/document.xml',
      broken.file('word/document.xml')!.asText().replace('</w:body>', '<w:p><w:r><w:t>open</w:body>'),
    );
    expect(
      caught(() => renderDocx(broken.generate({ type: 'nodebuffer' }), { template_data: {} })),
    ).toBeInstanceOf(InvalidTemplateError);
    // Text outside the root element (exceljs's invalid-xml.xlsx has "foo" after the declaration).
    for (const [where, edit] of [
      ['before', (xml: string) => xml.replace('<w:document', 'foo\n<w:document')],
      ['after', (xml: string) => `${xml}bar`],
    ] as const) {
      const stray = new PizZip(buildDocx(['x']));
      stray.file('word/document.xml', edit(stray.file('word/document.xml')!.asText()));
      expect([
        where,
        caught(() => renderDocx(stray.generate({ type: 'nodebuffer' }), { template_data: {} })).details,
      ]).toEqual([where, expect.objectContaining({ reason: 'malformed_xml', part: 'word/document.xml' })]);
    }

    const dtd = new PizZip(buildDocx(['x']));
    dtd.file(
      'word/document.xml',
      dtd
        .file('word/document.xml')!
        .asText()
        .replace(
          '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
          '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]>',
        ),
    );
    expect(
      caught(() => renderDocx(dtd.generate({ type: 'nodebuffer' }), { template_data: {} })).details,
    ).toMatchObject({ reason: 'dtd' });
  });

  it('payload_too_large for a template that unpacks beyond the limit (zip bomb)', () => {
    const zip = new PizZip(buildDocx(['x']));
    zip.file('word/bomb.xml', '0'.repeat(5_000_000));
    const e = caught(() =>
      renderDocx(
        zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }),
        { template_data: {} },
        { maxUncompressedBytes: 1_000_000 },
      ),
    );
    expect(e).toBeInstanceOf(PayloadTooLargeError);
  });

  it('refuses a zip entry that holds more than it declares, without inflating it', () => {
    const before = process.memoryUsage().rss;
    const e = caught(() => renderDocx(lyingZipBomb('word/document.xml', 300e6), { template_data: {} }));
    expect(e).toBeInstanceOf(InvalidTemplateError);
    expect(e.message).toContain('holds more than the 1024 bytes it declares');
    expect(process.memoryUsage().rss - before).toBeLessThan(100e6);
  });

  it('refuses Word XML beyond the parse limit with payload_too_large', () => {
    const e = caught(() => renderDocx(xmlVolumeBomb(8 << 20), { template_data: {} }));
    expect(e).toBeInstanceOf(PayloadTooLargeError);
    expect(e.details).toMatchObject({ limit: 4 * 1024 * 1024 });
  });

  it('refuses UTF-16 XML parts, whose DTDs a UTF-8 reading would miss', () => {
    const xml = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE d [<!ENTITY a "a">]><w:document/>';
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    const e = caught(() => renderDocx(withPart('word/document.xml', utf16), { template_data: {} }));
    expect(e).toBeInstanceOf(InvalidTemplateError);
    expect(e.details).toMatchObject({ reason: 'not_utf8' });
  });

  it('every error renders the spec error body', () => {
    const e = caught(() => render(['{{ x | nope }}'], {}));
    expect(e.toBody()).toEqual({
      status: 'error',
      error_type: 'template_syntax_error',
      message: expect.any(String),
      details: { errors: expect.any(Array) },
    });
  });
});

describe('private marker characters', () => {
  it('a value cannot forge the rich writer\u2019s paragraph or page marks, nor the tag delimiters', () => {
    // A rich value in the same part makes the rich writer resolve its marks after rendering.
    const data = {
      plain: 'a\uFDD2b\uFDD3c\uFDD0d\uFDD1e',
      styled: { $rich: [{ text: 'bold', bold: true }] },
    };
    const docx = render([p('{{ plain }} {{r styled }}')], data);
    expect(docxText(docx).body).toEqual(['abcde bold']);
    expect(documentXml(docx)).not.toMatch(/[\uFDD0-\uFDEF]/);
    expect(documentXml(docx)).not.toContain('w:type="page"');
  });
});
