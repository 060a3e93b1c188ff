import { contentDisposition, outputFilename } from './content-disposition';

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
  ])('%s → %s', (input, ext, expected) => {
    expect(outputFilename(input, ext)).toBe(expected);
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

  it('escapes what would break the header', () => {
    const header = contentDisposition(`it's 100% (ok).pdf`);
    expect(header).toContain(`filename="it's 100_ (ok).pdf"`);
    expect(header).toContain(`filename*=UTF-8''it%27s%20100%25%20%28ok%29.pdf`);
  });
});
