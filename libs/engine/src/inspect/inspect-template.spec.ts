import { buildDocx, p, table } from '../../../../test/support/docx-builder';
import { prepareImage } from '../docx/images';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { inspectTemplate } from './inspect-template';
import { TemplateInspectionSchema } from './inspection-schema';

const docx = buildDocx({
  body: [
    p('Dear {{ customer.name | title }}, {{ customer.address.city }}'),
    p('{{ logo }}'),
    p('{% if paid %}Paid{% endif %}{% if customer.vip is defined %}VIP{% endif %}'),
    table([
      ['{%tr for line in order.lines %}'],
      ['{{ line.sku }}', '{{ "%.2f" | format(line.price * line.qty) }}', '{{ line.photo | image }}'],
      ['{%tr endfor %}'],
    ]),
    p('{% for k, v in totals.items() %}{{ k }}={{ v }}{% endfor %} {{ note | default("") }}'),
    p('{% set net = order.lines | sum(attribute="price") %}{{ net }}'),
  ],
  header: [p('{{ company }}')],
});

describe('inspectTemplate', () => {
  const r = inspectTemplate(docx);
  const byPath = Object.fromEntries(r.variables.map((v) => [v.path, v]));

  it('lists each data path with how it is used, following loop variables to their list', () => {
    expect(Object.keys(byPath).sort()).toEqual(
      [
        'company',
        'customer.address.city',
        'customer.name',
        'customer.vip',
        'logo',
        'note',
        'order.lines',
        'order.lines[].photo',
        'order.lines[].price',
        'order.lines[].qty',
        'order.lines[].sku',
        'paid',
        'totals',
      ].sort(),
    );
    expect(byPath['order.lines'].usages).toEqual(['looped', 'computed']);
    expect(byPath['order.lines[].price']).toEqual(
      expect.objectContaining({ usages: ['printed'], numeric: true }),
    );
    expect(byPath['order.lines[].photo'].usages).toEqual(['image']);
    expect(byPath['customer.vip']).toEqual(expect.objectContaining({ usages: ['tested'], optional: true }));
    expect(byPath.note.optional).toBe(true);
    expect(byPath.totals.mapping).toBe(true);
    expect(byPath.company.locations[0].part).toMatch(/^word\/header\d*\.xml$/);
  });

  it('describes loops, conditions and images', () => {
    expect(r.loops.map((l) => [l.iterable, l.item_fields, l.placement])).toEqual([
      ['order.lines', ['sku', 'price', 'qty', 'photo'], 'tr'],
      ['totals', [], null],
    ]);
    expect(r.conditions.map((c) => c.variables)).toEqual([['paid'], ['customer.vip']]);
    expect(r.images.map((i) => [i.kind, i.name])).toEqual([
      ['placeholder', 'logo'],
      ['by_value', 'order.lines[].photo'],
    ]);
  });

  it('generates a template_data skeleton and images to start from', () => {
    expect(r.skeleton.template_data).toEqual({
      customer: { name: '', address: { city: '' }, vip: true },
      paid: true,
      order: { lines: [{ sku: '', price: 0, qty: 0, photo: 'image-name' }] },
      totals: {},
      note: '',
      company: '',
    });
    expect(Object.keys(r.skeleton.images)).toEqual(['logo']);
    // The stand-in PNG passes the same checks a caller's image does.
    expect(prepareImage('logo', r.skeleton.images.logo as never).widthPx).toBe(1);
  });

  it('generates a JSON Schema with required fields and types', () => {
    const schema = r.json_schema as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(expect.arrayContaining(['customer', 'order', 'company']));
    expect(schema.required).not.toContain('paid');
    expect(schema.required).not.toContain('note');
    expect(schema.properties.order.properties.lines.type).toBe('array');
    expect(schema.properties.order.properties.lines.items.properties.qty.type).toBe('number');
    expect(schema.properties.customer.required).toEqual(['name', 'address']);
  });
});

describe('TemplateInspectionSchema', () => {
  it('describes what inspectTemplate answers (the OpenAPI document is this schema)', () => {
    const fixtures = join(__dirname, '../../../../bench/fixtures');
    const answers = [
      docx,
      readFileSync(join(fixtures, 'invoice.docx')),
      readFileSync(join(fixtures, 'gallery.docx')),
    ].map((template) => inspectTemplate(template));
    expect(answers[0].loops.length + answers[0].images.length + answers[0].conditions.length).toBeGreaterThan(
      2,
    );
    for (const answer of answers) expect([...Value.Errors(TemplateInspectionSchema, answer)]).toEqual([]);
    expect(Value.Check(TemplateInspectionSchema, { ...answers[0], loops: [{ tag: 1 }] })).toBe(false);
  });
});
