import PizZip from 'pizzip';
import { PNG } from 'pngjs';
import { httpStatusOf, type TypedError } from '@app/contracts';
import {
  buildDocx,
  messy,
  p,
  table,
  SPLIT as S,
  type BlockSpec,
  type DocxSpec,
} from '../../../../test/support/docx-builder';
import { docxImages, docxText } from '../../../../test/support/docx-text';
import { InvalidRequestError, TemplateRuntimeError } from '../errors';
import { renderDocx, type RenderOptions } from '../render';
import { checkIban, epcPayload } from './barcodes';

type Data = Record<string, unknown>;

function render(spec: DocxSpec | BlockSpec[], data: Data, options?: RenderOptions): Buffer {
  return renderDocx(buildDocx(spec), { template_data: data }, options);
}
function body(spec: DocxSpec | BlockSpec[], data: Data = {}, options?: RenderOptions): string[] {
  return docxText(render(spec, data, options)).body;
}
function one(tag: string, data: Data = {}, options?: RenderOptions): string {
  return body([p(tag)], data, options)[0];
}
function failure(fn: () => unknown): TypedError {
  try {
    fn();
  } catch (e) {
    return e as TypedError;
  }
  throw new Error('expected an error');
}

const NNBSP = '\u202f';
const NBSP = '\u00a0';

describe('date filters (Babel names, ICU data)', () => {
  const d = { d: '2026-11-25', t: '2026-11-25T14:30:05Z', naive: '2026-11-25T23:30:00' };

  it('format_date: named formats in German, French, Russian, Japanese and Hindi', () => {
    expect(one('{{ d | format_date("long", locale="de_DE") }}', d)).toBe('25. November 2026');
    expect(one('{{ d | format_date("long", locale="fr-FR") }}', d)).toBe('25 novembre 2026');
    expect(one('{{ d | format_date("long", locale="ru_RU") }}', d)).toBe('25 ноября 2026 г.');
    expect(one('{{ d | format_date("full", locale="ja_JP") }}', d)).toBe('2026年11月25日水曜日');
    expect(one('{{ d | format_date("medium", locale="hi_IN") }}', d)).toBe('25 नव॰ 2026');
    expect(one('{{ d | format_date }}', d)).toBe('Nov 25, 2026'); // en_US, medium
  });

  it('LDML patterns: format and stand-alone months, weekdays, quotes', () => {
    expect(one('{{ d | format_date("EEEE, dd.MM.yyyy", locale="de_DE") }}', d)).toBe('Mittwoch, 25.11.2026');
    expect(one('{{ d | format_date("d MMMM y", locale="ru") }}', d)).toBe('25 ноября 2026');
    expect(one('{{ d | format_date("LLLL y", locale="ru") }}', d)).toBe('ноябрь 2026');
    expect(one(`{{ d | format_date("'Week' w, D'th day', EEE", locale="en_US") }}`, d)).toBe(
      'Week 48, 329th day, Wed',
    );
    expect(one(`{{ d | format_date("yy-MM-dd''Q", locale="en") }}`, d)).toBe("26-11-25'4");
  });

  it('format_datetime converts to the tzinfo or the request timezone; a naive value is UTC', () => {
    expect(
      one('{{ t | format_datetime("yyyy-MM-dd HH:mm zzzz", tzinfo="Europe/Berlin", locale="de") }}', d),
    ).toBe('2026-11-25 15:30 Mitteleuropäische Normalzeit');
    expect(one('{{ naive | format_datetime("d MMM HH:mm XXX") }}', d, { timezone: 'Asia/Tokyo' })).toBe(
      '26 Nov 08:30 +09:00',
    );
    expect(
      one('{{ t | format_datetime("short") }}', d, { locale: 'en_GB', timezone: 'America/New_York' }),
    ).toBe('25/11/2026, 09:30');
    expect(one('{{ t | format_time("HH:mm:ss", tzinfo="Asia/Kolkata") }}', d)).toBe('20:00:05');
    expect(one('{{ "09:05" | format_time("h:mm a") }}', d)).toBe('9:05 AM');
  });

  it("format_date takes a date-time's own calendar date, as Babel does", () => {
    expect(
      one('{{ "2026-11-25T23:30:00-05:00" | format_date("yyyy-MM-dd") }}', {}, { timezone: 'Asia/Tokyo' }),
    ).toBe('2026-11-25');
  });

  it('bad values and patterns are 422s naming the filter, the value and the tag', () => {
    const e = failure(() => one('{{ x | format_date("long") }}', { x: 'yesterday' }));
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(e.message).toContain('format_date: "yesterday": not an ISO 8601');
    expect(e.details.tag).toBe('{{ x | format_date("long") }}');
    expect(failure(() => one('{{ d | format_date("d WWW") }}', d)).message).toContain("pattern field 'WWW'");
    expect(failure(() => one('{{ d | format_date("d \'MMM") }}', d)).message).toContain('unclosed quote');
    expect(failure(() => one('{{ "2026-02-30" | format_date }}')).message).toContain('not a valid date');
    expect(failure(() => one('{{ d | format_date(locale="xx_YY") }}', d)).message).toContain(
      'unknown locale "xx_YY"',
    );
    expect(failure(() => one('{{ t | format_datetime(tzinfo="Mars/Olympus") }}', d)).message).toContain(
      'unknown time zone "Mars/Olympus"',
    );
    expect(failure(() => one('{{ 42 | format_date }}')).message).toContain('format_date: 42:');
  });

  it('an undefined value prints as missing values do (strict mode reports it)', () => {
    expect(one('[{{ nope | format_date }}]')).toBe('[]');
    expect(
      failure(() => one('{{ nope | format_currency("EUR") }}', {}, { undefined: 'strict' })).message,
    ).toContain('nope');
  });
});

describe('number filters', () => {
  it('format_decimal / format_currency / format_percent in several locales', () => {
    const n = { n: 1234.5678, m: 1234.56, neg: -9876.5 };
    expect(one('{{ n | format_decimal(locale="de_DE") }}', n)).toBe('1.234,568');
    expect(one('{{ m | format_currency("EUR", locale="de_DE") }}', n)).toBe(`1.234,56${NBSP}€`);
    expect(one('{{ m | format_currency("EUR", locale="fr_FR") }}', n)).toBe(`1${NNBSP}234,56${NBSP}€`);
    expect(one('{{ m | format_currency("USD") }}', n)).toBe('$1,234.56');
    expect(one('{{ 1234567.891 | format_decimal(locale="hi_IN") }}')).toBe('12,34,567.891');
    expect(one('{{ 0.256 | format_percent(locale="de") }}')).toBe(`26${NBSP}%`);
    expect(one('{{ neg | format_currency("USD", format_type="accounting") }}', n)).toBe('($9,876.50)');
  });

  it('currencies keep their own digits (JPY 0, KWD 3), with or without a pattern', () => {
    expect(one('{{ 1234.5 | format_currency("JPY", locale="ja_JP") }}')).toBe('￥1,234');
    expect(one('{{ 1234.5 | format_currency("KWD", locale="en") }}')).toBe(`KWD${NBSP}1,234.500`);
    expect(one('{{ 1234.5 | format_currency("JPY", "#,##0.00 ¤", locale="de_DE") }}')).toBe('1.234 ¥');
    expect(one('{{ 1234.5 | format_currency("EUR", "#,##0.00 ¤¤", locale="de_DE") }}')).toBe('1.234,50 EUR');
  });

  it('LDML number patterns: grouping, padding, negative subpattern, per-mille, half-even', () => {
    expect(one('{{ 1234567.5 | format_decimal("#,##,##0.00", locale="en_IN") }}')).toBe('12,34,567.50');
    expect(one('{{ 7 | format_decimal("000.0") }}')).toBe('007.0');
    expect(one('{{ -42 | format_decimal("#,##0.00;(#,##0.00)") }}')).toBe('(42.00)');
    expect(one('{{ 0.0125 | format_decimal("#,##0.0‰") }}')).toBe('12.5‰');
    expect(one('{{ 2.5 | format_decimal("#") }}|{{ 3.5 | format_decimal("#") }}')).toBe('2|4');
    expect(one('{{ 0.145 | format_percent("#,##0.0%") }}')).toBe('14.5%'); // exact decimal, not 14.499…
    expect(one('{{ "1234.5" | format_decimal("#,##0.00", locale="de_CH") }}')).toBe("1'234.50"); // CLDR 48: U+0027; Babel 2.10's CLDR 41: U+2019;
    expect(one('{{ 1234 | format_decimal(group_separator=false) }}')).toBe('1234');
    // As Babel: an integer digit even for '#' patterns, and significant digits with '@'.
    expect(one('{{ 0.5 | format_decimal("#.##") }} {{ 1234.5678 | format_decimal("@@@") }}')).toBe(
      '0.5 1230',
    );
  });

  it('format_compact_decimal', () => {
    expect(one('{{ 12345 | format_compact_decimal }}')).toBe('12K');
    expect(one('{{ 1234567 | format_compact_decimal(format_type="long", locale="de") }}')).toBe('1 Million');
    expect(one('{{ 1234567 | format_compact_decimal(fraction_digits=1, locale="en") }}')).toBe('1.2M');
  });

  it('bad numbers, currencies and patterns are 422s naming the filter and the value', () => {
    const e = failure(() => one('{{ x | format_decimal }}', { x: 'twelve' }));
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(e.message).toContain('format_decimal: "twelve": not a number');
    expect(failure(() => one('{{ 1 | format_currency("EURO") }}')).message).toContain(
      'unknown currency "EURO"',
    );
    expect(failure(() => one('{{ 1 | format_currency }}')).message).toContain('needs a currency');
    expect(failure(() => one('{{ 1 | format_decimal("#,##0.0E0") }}')).message).toContain('scientific');
    expect(failure(() => one('{{ 1 | format_decimal("abc") }}')).message).toContain('has no digits');
  });
});

describe('request defaults', () => {
  it('options.locale / timezone accept de_DE and de-DE, and are used by every filter', () => {
    const data = { d: '2026-11-25', n: 1234.5 };
    const tpl = '{{ d | format_date("long") }} {{ n | format_decimal }}';
    expect(one(tpl, data, { locale: 'de_DE' })).toBe('25. November 2026 1.234,5');
    expect(one(tpl, data, { locale: 'de-DE' })).toBe('25. November 2026 1.234,5');
  });

  it('an unknown locale or time zone is a 400 naming the field', () => {
    for (const [options, field] of [
      [{ locale: 'xx_YY' }, 'options.locale'],
      [{ locale: 'de_ZZ' }, 'options.locale'],
      [{ locale: '../../etc' }, 'options.locale'],
      [{ timezone: 'Europe/Atlantis' }, 'options.timezone'],
      [{ timezone: '+01:00' }, 'options.timezone'],
    ] as const) {
      const e = failure(() => one('x', {}, options));
      expect(e).toBeInstanceOf(InvalidRequestError);
      expect(httpStatusOf(e.errorType)).toBe(400);
      expect(e.details.field).toBe(field);
    }
  });
});

const EMU_PER_MM = 36000;

function media(docx: Buffer, target: string): PNG {
  return PNG.sync.read(Buffer.from(new PizZip(docx).file(target)!.asUint8Array()));
}

describe('barcode filters place inline pictures', () => {
  it('in paragraphs, table cells, loops, headers and footers, at the size asked for, ≥ 300 dpi', () => {
    const docx = render(
      {
        header: [p(`{{ url | qrcode(size_mm=20) }}`)],
        footer: [p(`{{ sku | ${S}barcode("ean13", width_mm=40, height_mm=20) }}`)],
        body: [
          messy(`Pay: {{ pay ${S}| epc_qr(size_mm=35) }} thanks`),
          table([
            ['Item', 'Code'],
            ['{%tr for i in items %}', ''],
            ['{{ i.name }}', '{{ i.code | barcode("code128", width_mm=50, height_mm=15) }}'],
            ['{%tr endfor %}', ''],
          ]),
        ],
      },
      {
        url: 'https://example.org/invoice/2026-0042',
        sku: '4006381333931',
        pay: {
          name: 'Müller GmbH',
          iban: 'DE89 3704 0044 0532 0130 00',
          bic: 'COBADEFFXXX',
          amount: 1234.5,
          remittance: 'Invoice 2026-0042',
        },
        items: [
          { name: 'Widget', code: 'WID-001' },
          { name: 'Gadget', code: 'GAD-002' },
        ],
      },
    );
    const imgs = docxImages(docx);
    const byPart = (part: string) => imgs.filter((i) => i.part === part);
    expect(byPart('word/header1.xml')).toHaveLength(1);
    expect(byPart('word/footer1.xml')).toHaveLength(1);
    expect(byPart('word/document.xml')).toHaveLength(3);
    for (const i of imgs) {
      expect(i.inline).toBe(true);
      expect(i.exists).toBe(true);
    }
    const [hdr] = byPart('word/header1.xml');
    expect([hdr.cx, hdr.cy]).toEqual([20 * EMU_PER_MM, 20 * EMU_PER_MM]);
    const [ftr] = byPart('word/footer1.xml');
    expect([ftr.cx, ftr.cy]).toEqual([40 * EMU_PER_MM, 20 * EMU_PER_MM]);
    const [epc, c1, c2] = byPart('word/document.xml');
    expect([epc.cx, epc.cy]).toEqual([35 * EMU_PER_MM, 35 * EMU_PER_MM]);
    expect([c1.cx, c1.cy]).toEqual([50 * EMU_PER_MM, 15 * EMU_PER_MM]);
    expect(c1.target).not.toBe(c2.target); // two codes, two pictures
    for (const [img, mm] of [
      [hdr, 20],
      [ftr, 40],
      [epc, 35],
      [c1, 50],
    ] as const) {
      const png = media(docx, img.target!);
      expect(png.width / (mm / 25.4)).toBeGreaterThanOrEqual(300);
      // The picture's own aspect is the one drawn (a code is not stretched by Word).
      expect(Math.abs(png.height / png.width - img.cy / img.cx)).toBeLessThan(0.03);
    }
    const doc = new PizZip(docx).file('word/document.xml')!.asText();
    expect(doc).toContain('descr="qrcode: BCD');
    expect(docxText(docx).body[0]).toBe('Pay:  thanks');
  });

  it('the same code twice is one media file', () => {
    const docx = render([p('{{ x | qrcode }}{{ x | qrcode }}')], { x: 'same' });
    const imgs = docxImages(docx);
    expect(imgs).toHaveLength(2);
    expect(imgs[0].target).toBe(imgs[1].target);
  });

  it('refusals are 422s naming the filter, the value and the reason', () => {
    const cases: [string, Data, string][] = [
      [
        '{{ x | barcode("ean13") }}',
        { x: '40063813339A' },
        'barcode: "40063813339A": cannot be encoded as ean13',
      ],
      ['{{ x | barcode("ean8") }}', { x: '123456789' }, 'too long for ean8'],
      ['{{ x | barcode("upca") }}', { x: '12345' }, 'cannot be encoded as upca'],
      ['{{ x | barcode("aztec") }}', { x: '1' }, 'unknown barcode type "aztec"'],
      ['{{ x | qrcode(size_mm=500) }}', { x: '1' }, 'size_mm must be a number from 5 to 200'],
      ['{{ x | qrcode(ecc="X") }}', { x: '1' }, 'ecc must be L, M, Q or H'],
      ['{{ x | qrcode }}', { x: 'x'.repeat(2001) }, 'too long for qrcode: 2001 characters, at most 2000'],
      ['{{ x | barcode("code128", width_mm=100, height_mm=5) }}', { x: 'ABC' }, 'leaves bars under 3 mm'],
      ['{{ x | epc_qr }}', { x: { name: 'A', iban: 'DE89370400440532013001' } }, 'IBAN checksum is wrong'],
      [
        '{{ x | epc_qr }}',
        { x: { name: 'A', iban: 'DE8937040044053201300' } },
        'a DE IBAN has 22 characters, not 21',
      ],
      [
        '{{ x | epc_qr }}',
        { x: { name: 'A', iban: 'DE89370400440532013000', currency: 'USD' } },
        'euro amounts only',
      ],
      ['{{ x | epc_qr }}', { x: { iban: 'DE89370400440532013000' } }, 'has no name'],
      [
        '{{ x | epc_qr }}',
        { x: { name: 'A', iban: 'DE89370400440532013000', amount: 1.234 } },
        'at most 2 decimals',
      ],
    ];
    for (const [tag, data, msg] of cases) {
      const e = failure(() => one(tag, data));
      expect(e).toBeInstanceOf(TemplateRuntimeError);
      expect(httpStatusOf(e.errorType)).toBe(422);
      expect(e.message).toContain(msg);
      expect(e.details.tag).toBe(tag);
    }
  });

  it('a document whose codes would take more than 100 million pixels together is refused', () => {
    // 200 mm squares at ≥ 300 dpi are ~6 million pixels each: the 17th crosses the limit.
    const codes = Array.from({ length: 20 }, (_, i) => `code ${i}`);
    const e = failure(() => one('{% for c in codes %}{{ c | qrcode(size_mm=200) }}{% endfor %}', { codes }));
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(e.message).toContain('qrcode: "code 1');
    expect(e.message).toContain('more than 100 million pixels');
  });

  it('IBAN checks: spaces and case forgiven, country length and mod 97 enforced', () => {
    expect(checkIban('de89 3704 0044 0532 0130 00').iban).toBe('DE89370400440532013000');
    expect(checkIban('GB82WEST12345698765432').iban).toBe('GB82WEST12345698765432');
    expect(checkIban('GB82WEST12345698765433').reason).toContain('checksum');
    expect(checkIban('US12345678901234').reason).toContain('not in the SEPA scheme');
  });

  it('EPC069-12 payload: version 002, UTF-8, SCT, amount with two decimals, trailing empty lines dropped', () => {
    expect(
      epcPayload({
        name: 'Müller GmbH',
        iban: 'DE89370400440532013000',
        bic: 'cobadeffxxx',
        amount: 12.5,
        remittance: 'Inv 7',
      }),
    ).toBe('BCD\n002\n1\nSCT\nCOBADEFFXXX\nMüller GmbH\nDE89370400440532013000\nEUR12.50\n\n\nInv 7');
    expect(epcPayload({ name: 'A', iban: 'DE89370400440532013000' })).toBe(
      'BCD\n002\n1\nSCT\n\nA\nDE89370400440532013000',
    );
  });
});
