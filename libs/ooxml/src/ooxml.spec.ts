import { createHash } from 'node:crypto';
import {
  ContentTypes,
  EMPTY_RELS,
  readStyles,
  readStylesPart,
  relsPathOf,
  STYLES_PART,
  withCustomProperty,
  withDefaultContentType,
  withOverrideContentType,
  withRelationships,
  WORD_HEADER_TYPE,
} from './index';

const TYPES =
  '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="xml" ContentType="application/xml"/><Default Extension="PNG" ContentType="image/png"/>' +
  `<Override PartName="/word/Top.xml" ContentType="${WORD_HEADER_TYPE}"/></Types>`;

describe('content types', () => {
  const types = new ContentTypes(TYPES);

  it('gives a part its Override, else its extension’s Default, names compared without case', () => {
    expect(types.typeOf('word/top.xml')).toBe(WORD_HEADER_TYPE);
    expect(types.typeOf('word/styles.xml')).toBe('application/xml');
    expect(types.typeOf('word/media/a.png')).toBe('image/png');
    expect(types.typeOf('word/media/a.bin')).toBeUndefined();
    expect(types.partsOfType(['word/styles.xml', 'word/Top.xml'], new Set([WORD_HEADER_TYPE]))).toEqual([
      'word/Top.xml',
    ]);
  });

  it('adds a Default or an Override once', () => {
    const once = withDefaultContentType(TYPES, 'gif', 'image/gif');
    expect(once).toContain('<Default Extension="gif" ContentType="image/gif"/>');
    expect(withDefaultContentType(once, 'gif', 'image/gif')).toBe(once);
    expect(withDefaultContentType(TYPES, 'png', 'image/png')).toBe(TYPES);
    const override = withOverrideContentType(TYPES, '/word/numbering.xml', 'n');
    expect(new ContentTypes(override).typeOf('word/numbering.xml')).toBe('n');
    expect(withOverrideContentType(override, '/word/numbering.xml', 'n')).toBe(override);
  });
});

describe('relationships', () => {
  it('finds a part’s .rels and appends to an empty or self-closed root', () => {
    expect(relsPathOf('word/header1.xml')).toBe('word/_rels/header1.xml.rels');
    expect(relsPathOf('[Content_Types].xml')).toBe('_rels/[Content_Types].xml.rels');
    const rel = '<Relationship Id="rId1" Type="t" Target="x"/>';
    expect(withRelationships(EMPTY_RELS, rel)).toContain(`${rel}</Relationships>`);
    expect(withRelationships('<Relationships xmlns="r"/>', rel)).toBe(
      `<Relationships xmlns="r">${rel}</Relationships>`,
    );
  });
});

describe('custom properties', () => {
  const pkg = {
    contentTypes: '<Types></Types>',
    rootRels: '<Relationships></Relationships>',
  };

  it('creates custom.xml with its content type and root relationship', () => {
    const out = withCustomProperty(pkg, 'Total', '12', 'rIdX')!;
    expect(out.custom).toContain('pid="2" name="Total"><vt:lpwstr>12</vt:lpwstr>');
    expect(out.contentTypes).toContain('PartName="/docProps/custom.xml"');
    expect(out.rootRels).toContain('Id="rIdX"');
  });

  it('adds after the highest pid, and refuses a name taken or a form it does not know', () => {
    const first = withCustomProperty(pkg, 'A', '1', 'rIdX')!;
    const second = withCustomProperty(first, 'B', '2', 'rIdX')!;
    expect(second.custom).toContain('pid="3" name="B"');
    expect(second.rootRels.match(/custom-properties/g)).toHaveLength(1);
    expect(withCustomProperty(second, 'B', '3', 'rIdX')).toBeNull();
    expect(withCustomProperty({ ...pkg, custom: '<Properties/>' }, 'C', '1', 'rIdX')).toBeNull();
  });
});

describe('styles', () => {
  const xml =
    '<w:styles xmlns:w="urn:w"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>' +
    '<w:style w:type="table" w:styleId="Grid"><w:name w:val="Table Grid"/></w:style></w:styles>';

  it('reads every w:style with its id, type, name, default flag and XML', () => {
    const entries = readStyles(xml);
    expect(entries.map(({ id, type, name, isDefault }) => [id, type, name, isDefault])).toEqual([
      ['Normal', 'paragraph', 'Normal', true],
      ['Grid', 'table', 'Table Grid', false],
    ]);
    expect(entries[1].xml).toBe(
      '<w:style w:type="table" w:styleId="Grid"><w:name w:val="Table Grid"/></w:style>',
    );
    expect(readStyles(undefined)).toEqual([]);
  });

  it('reads the styles part once with the digest the caches key on', () => {
    const zip = { file: (name: string) => (name === STYLES_PART ? { asText: () => xml } : null) };
    const part = readStylesPart(zip)!;
    expect(part.xml).toBe(xml);
    expect(part.digest).toBe(createHash('sha256').update(xml).digest('base64'));
    expect(readStylesPart({ file: () => null })).toBeUndefined();
  });
});
