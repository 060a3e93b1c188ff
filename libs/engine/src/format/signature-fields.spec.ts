import PizZip from 'pizzip';
import { httpStatusOf, type TypedError } from '@app/contracts';
import { buildDocx, p, table } from '../../../../test/support/docx-builder';
import { Value } from '@sinclair/typebox/value';
import { renderDocx } from '../render';
import { inspectTemplate } from '../inspect/inspect-template';
import { TemplateInspectionSchema } from '../inspect/inspection-schema';
import { lintDocxTemplate } from '../lint/lint-template';
import { LintReportSchema } from '../lint/lint-report';
import { TemplateRuntimeError } from '../errors';
import { SIGNATURE_PLACE_URI } from './signature-fields';

function rendered(blocks: Parameters<typeof buildDocx>[0], data: Record<string, unknown> = {}) {
  const zip = new PizZip(renderDocx(buildDocx(blocks), { template_data: data }));
  return {
    doc: zip.file('word/document.xml')!.asText(),
    rels: zip.file('word/_rels/document.xml.rels')!.asText(),
    media: Object.keys(zip.files).filter((f) => f.startsWith('word/media/')),
  };
}

function failure(fn: () => unknown): TypedError {
  try {
    fn();
  } catch (e) {
    return e as TypedError;
  }
  throw new Error('expected an error');
}

describe('signature_field()', () => {
  it('prints an inline picture of the given size whose docPr links to the place marker', () => {
    const { doc, rels, media } = rendered([
      p("Seller: {{ signature_field('seller', width_mm=60, height_mm=25) }}"),
    ]);
    expect(doc).toContain('<wp:extent cx="2160000" cy="900000"/>');
    expect(doc).toContain('distT="0" distB="0" distL="0" distR="0"');
    const linkRId = /<a:hlinkClick [^>]*r:id="([^"]+)"\/><\/wp:docPr>/.exec(doc)?.[1];
    expect(linkRId).toBeDefined();
    expect(rels).toContain(
      `<Relationship Id="${linkRId}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${SIGNATURE_PLACE_URI}seller" TargetMode="External"/>`,
    );
    expect(media).toHaveLength(1);
    expect(doc).toContain('Seller: </w:t>');
  });

  it('defaults to 60 × 25 mm and takes positional sizes; one media file per size, one link per place', () => {
    const { doc, rels, media } = rendered([
      p("{{ signature_field('a') }}{{ signature_field('b', 60, 25) }}{{ signature_field('c', 40.5, 20) }}"),
    ]);
    expect(doc.match(/<wp:extent cx="2160000" cy="900000"\/>/g)).toHaveLength(2);
    expect(doc).toContain('<wp:extent cx="1458000" cy="720000"/>');
    expect(media).toHaveLength(2);
    for (const name of ['a', 'b', 'c']) expect(rels).toContain(`Target="${SIGNATURE_PLACE_URI}${name}"`);
  });

  it('in a loop and a table cell: one place per copy, with the name the template builds', () => {
    const { doc, rels } = rendered(
      [
        table([
          ['{%tr for s in signers %}', ''],
          ['{{ s }}', "{{ signature_field('signer_' ~ loop.index, width_mm=50, height_mm=20) }}"],
          ['{%tr endfor %}', ''],
        ]),
      ],
      { signers: ['Ann', 'Bob', 'Cy'] },
    );
    expect(doc.match(/<a:hlinkClick /g)).toHaveLength(3);
    for (const i of [1, 2, 3]) expect(rels).toContain(`Target="${SIGNATURE_PLACE_URI}signer_${i}"`);
  });

  it.each([
    ["{{ signature_field('x') }}{{ signature_field('x') }}", 'signature_field: "x": a document holds each'],
    ['{{ signature_field() }}', 'the field name is missing'],
    ['{{ signature_field(3) }}', 'must be the field name, a string'],
    ["{{ signature_field('a.b') }}", 'letters, digits, _ or -'],
    ["{{ signature_field('s', width_mm='wide') }}", 'width_mm must be a number from 10 to 250'],
    ["{{ signature_field('s', height_mm=5) }}", 'height_mm must be a number from 10 to 250'],
    ["{{ signature_field('s', colour='red') }}", 'unknown argument colour'],
  ])('%s: a typed 422 naming the problem', (tag, message) => {
    const e = failure(() => rendered([p(tag)]));
    expect(e).toBeInstanceOf(TemplateRuntimeError);
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(e.message).toContain(message);
  });
});

describe('signature fields in inspect-template and lint', () => {
  const template = buildDocx([
    p("Seller: {{ signature_field('seller', width_mm=60, height_mm=25) }}"),
    p('{%p for s in signers %}'),
    p("{{ s }}: {{ signature_field('signer_' ~ loop.index, 50) }}"),
    p('{%p endfor %}'),
  ]);

  it('inspect-template lists each place: name (null when computed) and size', () => {
    const inspection = inspectTemplate(template);
    expect(Value.Check(TemplateInspectionSchema, inspection)).toBe(true);
    expect(inspection.signature_fields.map(({ location: _l, ...f }) => f)).toEqual([
      {
        name: 'seller',
        width_mm: 60,
        height_mm: 25,
        tag: "{{ signature_field('seller', width_mm=60, height_mm=25) }}",
      },
      { name: null, width_mm: 50, height_mm: 25, tag: "{{ signature_field('signer_' ~ loop.index, 50) }}" },
    ]);
    // Not a variable of the data.
    expect(inspection.variables.map((v) => v.path).filter((v) => v.includes('signature'))).toEqual([]);
    expect(inspection.variables.map((v) => v.path)).toContain('signers');
  });

  it('lint passes good calls and flags a missing name, a size that is not a number and a name used twice', () => {
    expect(lintDocxTemplate(template).errors).toEqual([]);
    const report = lintDocxTemplate(
      buildDocx([
        p('{{ signature_field() }}'),
        p("{{ signature_field('a', width_mm='wide') }}"),
        p("{{ signature_field('b', colour='red') }}"),
        p("{{ signature_field('c') }} and {{ signature_field('c') }}"),
      ]),
    );
    expect(Value.Check(LintReportSchema, report)).toBe(true);
    expect(report.errors.map((e) => [e.code, e.error_type, e.line_number, e.message])).toEqual([
      ['bad_signature_field', 'invalid_expression', 1, 'signature_field: the field name is missing'],
      [
        'bad_signature_field',
        'invalid_expression',
        2,
        'signature_field: width_mm must be a number from 10 to 250 (millimetres)',
      ],
      ['bad_signature_field', 'invalid_expression', 3, 'signature_field: unknown argument colour'],
      [
        'bad_signature_field',
        'invalid_expression',
        4,
        "signature_field: the signature field 'c' is placed twice; a document holds each once",
      ],
    ]);
  });
});
