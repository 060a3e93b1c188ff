import { Hash } from 'node:crypto';
import PizZip from 'pizzip';
import { corpusRequest, corpusTemplate } from '../../../../bench/corpus';
import { renderDocx, type RenderRequest } from '../render';
import { readStylesPart, STYLES_PART } from './styles-part';
import { pruneUnusedStyles } from './unused-styles';
import { resolveTableStyles } from './table-styles';

describe('styles.xml, read once per fill', () => {
  afterEach(() => jest.restoreAllMocks());

  it("hashes Word's 349 KB styles.xml once when a fill both resolves table styles and prunes", () => {
    const template = corpusTemplate('invoice');
    const styles = new PizZip(template).file(STYLES_PART)!.asText();
    const spy = jest.spyOn(Hash.prototype, 'update');
    renderDocx(template, corpusRequest('invoice') as RenderRequest, {
      resolveTableStyles: true,
      pruneUnusedStyles: true,
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

  it('is absent from a package without styles.xml', () => {
    expect(readStylesPart(new PizZip())).toBeUndefined();
  });
});
