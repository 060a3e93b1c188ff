import { Hash } from 'node:crypto';
import PizZip from 'pizzip';
import { readStylesPart, renderDocx, STYLES_PART, type RenderRequest } from '@app/engine';
import { corpusRequest, corpusTemplate } from '../../../../bench/corpus';
import { CELL_BUDGET, LIBREOFFICE_PREPARE, libreOfficePasses, TABLE_STYLES, UNUSED_STYLES } from './passes';
import { pruneUnusedStyles } from './unused-styles';
import { resolveTableStyles } from './table-styles';

describe("LibreOffice's preparation passes", () => {
  it('run in order: the budget first (a refusal costs nothing more), the unused styles after the table styles', () => {
    expect(LIBREOFFICE_PREPARE).toEqual([CELL_BUDGET, TABLE_STYLES, UNUSED_STYLES]);
  });

  it('change nothing when no setting asks for them', () => {
    const template = corpusTemplate('invoice');
    const request = corpusRequest('invoice') as RenderRequest;
    const xml = (docx: Buffer) => new PizZip(docx).file('word/document.xml')!.asText();
    const plain = renderDocx(template, request);
    expect(xml(renderDocx(template, request, { packagePasses: libreOfficePasses({}) }))).toBe(xml(plain));
    expect(xml(plain)).toContain('<w:tblStyle ');
  });
});

describe('styles.xml, read once per fill', () => {
  afterEach(() => jest.restoreAllMocks());

  it("hashes Word's 349 KB styles.xml once when a fill both resolves table styles and prunes", () => {
    const template = corpusTemplate('invoice');
    const styles = new PizZip(template).file(STYLES_PART)!.asText();
    const spy = jest.spyOn(Hash.prototype, 'update');
    renderDocx(template, corpusRequest('invoice') as RenderRequest, {
      packagePasses: libreOfficePasses({ resolveTableStyles: true, pruneUnusedStyles: true }),
    });
    const ofStyles = spy.mock.calls.filter(
      ([bytes]) => Buffer.isBuffer(bytes) && bytes.toString('utf8') === styles,
    );
    expect(ofStyles).toHaveLength(1);
  });

  it('lets both steps work from the part they are handed, without reading styles.xml again', () => {
    const zip = new PizZip(renderDocx(corpusTemplate('invoice'), corpusRequest('invoice') as RenderRequest));
    const part = readStylesPart(zip)!;
    zip.file(STYLES_PART)!.asText = () => {
      throw new Error('styles.xml read again');
    };
    resolveTableStyles(zip, part);
    expect(zip.file('word/document.xml')!.asText()).not.toContain('<w:tblStyle ');
    expect(pruneUnusedStyles(zip, part)).toBeGreaterThan(100);
  });
});
