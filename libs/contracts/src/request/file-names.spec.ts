import { contentDisposition, outputFilename } from './file-names';

describe('outputFilename', () => {
  it.each([
    ['template.docx', 'pdf', 'template.pdf'],
    ['Template.DOCX', 'pdf', 'Template.pdf'],
    ['report', 'pdf', 'report.pdf'],
    ['C:\\Users\\me\\invoice.docx', 'pdf', 'invoice.pdf'],
    ['../../etc/passwd', 'pdf', 'passwd.pdf'],
    ['a"b<c>|d?.docx', 'pdf', 'abcd.pdf'],
    ['line\r\nbreak.docx', 'pdf', 'linebreak.pdf'],
    ['.docx', 'pdf', 'document.pdf'],
    [undefined, 'pdf', 'document.pdf'],
    ['facture été.docx', 'docx', 'facture été.docx'],
    ['prices.xlsx', 'pdf', 'prices.pdf'],
    ['Prices.XLSX', 'ods', 'Prices.ods'],
  ])('%s → %s', (input, ext, expected) => {
    expect(outputFilename(input, ext)).toBe(expected);
  });

  it.each([
    ['right-to-left override', 'invoice\u202Efdp.exe.docx', 'invoicefdp.exe.pdf'],
    ['every embedding and override', 'a\u202Ab\u202Bc\u202Cd\u202De\u202Ef.docx', 'abcdef.pdf'],
    ['isolates', 'a\u2066b\u2067c\u2068d\u2069e.docx', 'abcde.pdf'],
    ['marks (LRM, RLM, ALM)', 'a\u200Eb\u200Fc\u061Cd.docx', 'abcd.pdf'],
    ['line and paragraph separators', 'a\u2028b\u2029c.docx', 'abc.pdf'],
    ['invisible characters', '\uFEFFa\u200Bb\u2060c\u206Ad\uFFF9e.docx', 'abcde.pdf'],
    ['a tab and DEL', 'a\tb\u007Fc\u0085d.docx', 'abcd.pdf'],
  ])('removes %s', (_name, input, expected) => {
    expect(outputFilename(input, 'pdf')).toBe(expected);
  });

  it('keeps zero-width joiners (emoji sequences) and right-to-left letters', () => {
    expect(outputFilename('👩\u200D💻 שלום.docx', 'pdf')).toBe('👩\u200D💻 שלום.pdf');
  });

  it('keeps long names bounded', () => {
    expect(outputFilename(`${'x'.repeat(500)}.docx`, 'pdf')).toHaveLength(154);
  });
});

describe('contentDisposition', () => {
  it('sends ASCII names as they are', () => {
    expect(contentDisposition('template.pdf')).toBe(
      `attachment; filename="template.pdf"; filename*=UTF-8''template.pdf`,
    );
  });

  it('adds an RFC 5987 name for unicode and a readable ASCII fallback', () => {
    expect(contentDisposition('facture été 日本.pdf')).toBe(
      `attachment; filename="facture ete __.pdf"; filename*=UTF-8''facture%20%C3%A9t%C3%A9%20%E6%97%A5%E6%9C%AC.pdf`,
    );
  });

  it('sends no bidirectional control in filename* for a spoofing name', () => {
    const header = contentDisposition(outputFilename('invoice\u202Efdp.exe.docx', 'pdf'));
    expect(header).toBe(`attachment; filename="invoicefdp.exe.pdf"; filename*=UTF-8''invoicefdp.exe.pdf`);
    expect(header).not.toMatch(/%E2%80%A[A-E]|%E2%81%A[6-9]|%E2%80%8[EF]|%D8%9C/);
  });

  it('escapes what would break the header', () => {
    const header = contentDisposition(`it's 100% (ok).pdf`);
    expect(header).toContain(`filename="it's 100_ (ok).pdf"`);
    expect(header).toContain(`filename*=UTF-8''it%27s%20100%25%20%28ok%29.pdf`);
  });
});
