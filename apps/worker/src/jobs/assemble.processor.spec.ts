import PizZip from 'pizzip';
import { withExtension, zipItems } from './assemble.processor';

describe('withExtension: a zip item named by what the item made', () => {
  it("replaces an output format's extension, appends one otherwise", () => {
    expect(withExtension('letter.png', 'zip')).toBe('letter.zip');
    expect(withExtension('letter.zip', 'png')).toBe('letter.png');
    expect(withExtension('second.PDF', 'jpg')).toBe('second.jpg');
    expect(withExtension('0', 'html')).toBe('0.html');
    // Not an output's extension: part of the name.
    expect(withExtension('report.v2', 'pdf')).toBe('report.v2.pdf');
  });

  it('zipItems holds the items under their names', () => {
    const zip = new PizZip(
      zipItems([
        { name: withExtension('a.pdf', 'png'), body: Buffer.from('png') },
        { name: withExtension('b', 'txt'), body: Buffer.from('text') },
      ]),
    );
    expect(Object.keys(zip.files).sort()).toEqual(['a.png', 'b.txt']);
    expect(zip.file('b.txt')!.asText()).toBe('text');
  });
});
