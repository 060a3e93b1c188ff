import { buildDocx, p } from '../../../test/support/docx-builder';
import { docxText } from '../../../test/support/docx-text';
import { UndefinedVariableError } from './errors';
import { renderDocx, type RenderOptions } from './render';

const TEMPLATE = buildDocx([
  p('Name: {{ farmer.name }}'),
  p('Email: {{ farmer.email }}'),
  p('Org: {{ organization.type }}'),
  p('Fallback: {{ farmer.phone | default("none") }}'),
  p('{% for c in crops %}{{ c.kind }};{% endfor %}'),
]);
const DATA = { farmer: { name: 'John' }, crops: [{ kind: 'corn' }, {}] };

function lines(undefinedMode: RenderOptions['undefined']): string[] {
  return docxText(renderDocx(TEMPLATE, { template_data: DATA }, { undefined: undefinedMode })).body;
}

describe('undefined modes (the seed system undefined_behavior)', () => {
  it('empty prints nothing for missing variables and attributes', () => {
    expect(lines('empty')).toEqual(['Name: John', 'Email: ', 'Org: ', 'Fallback: none', 'corn;;']);
  });

  it('debug prints the written path of each missing value', () => {
    expect(lines('debug')).toEqual([
      'Name: John',
      'Email: [Missing variable: farmer.email]',
      'Org: [Missing variable: organization.type]',
      'Fallback: none',
      'corn;[Missing variable: c.kind];',
    ]);
  });

  it('property_missing prints the seed system marker, XML-escaped', () => {
    const out = lines('property_missing');
    expect(out[1]).toBe('Email: <property missing in json>');
    expect(out[3]).toBe('Fallback: none');
  });

  it('strict names every missing value by its written path', () => {
    let caught: unknown;
    try {
      lines('strict');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(UndefinedVariableError);
    expect((caught as UndefinedVariableError).variables.sort()).toEqual([
      'c.kind',
      'farmer.email',
      'organization.type',
    ]);
  });
});
