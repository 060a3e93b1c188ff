import { boardJobData, boardJobResult } from './job-view';

describe('what Bull Board shows of a job', () => {
  it('keeps ids, sizes, the file name and options, and drops anything else', () => {
    const data = {
      requestId: 'r1',
      templateKey: '{docx}:render-payload:j:template',
      requestKey: 'k2',
      resultKey: 'k3',
      filename: 'invoice.pdf',
      templateBytes: 10,
      requestBytes: 20,
      imageCount: 1,
      options: { undefined: 'empty', output: 'pdf', extra: 'iVBORw0KGgo' },
      template: 'UEsDBBQ…',
      images: { logo: { data: 'iVBORw0KGgo' } },
    };
    expect(boardJobData(data)).toEqual({
      requestId: 'r1',
      filename: 'invoice.pdf',
      templateBytes: 10,
      requestBytes: 20,
      imageCount: 1,
      options: { undefined: 'empty', output: 'pdf' },
    });
    expect(boardJobData(null)).toEqual({});
    expect(boardJobData('text')).toEqual({});
  });

  it('never shows options.pdf: its finishing options hold passwords and files (docs/pdf.md)', () => {
    // The API keeps them out of job data; should one ever get in, the board still drops it.
    const view = boardJobData({
      requestId: 'r2',
      options: {
        undefined: 'strict',
        output: 'pdf',
        pdf: { pdfa: 'PDF/A-3b', encryption: { owner_password: 'Geheim-1' }, append: [{ data: 'JVBERi0x' }] },
      },
    });
    expect(view).toEqual({ requestId: 'r2', options: { undefined: 'strict', output: 'pdf' } });
    expect(JSON.stringify(view)).not.toContain('Geheim-1');
  });

  it('shows which stored template and version a render by id used, and nothing else of it', () => {
    const view = boardJobData({
      requestId: 'r3',
      storedTemplate: { templateId: 't1', version: 4, digest: 'ab', extra: 'x' },
    });
    expect(view).toEqual({ requestId: 'r3', storedTemplate: { templateId: 't1', version: 4, digest: 'ab' } });
  });

  it('shows sizes and timings of a result, not where it is stored', () => {
    expect(
      boardJobResult({
        resultKey: 'k',
        bytes: 5,
        contentType: 'application/pdf',
        renderMs: 1,
        convertMs: 2,
        worker: 'w',
      }),
    ).toEqual({ bytes: 5, contentType: 'application/pdf', renderMs: 1, convertMs: 2, worker: 'w' });
  });
});
