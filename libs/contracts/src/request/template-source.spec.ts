import { templateSourceOf } from './template-source';

describe('templateSourceOf: exactly one of file and template_id', () => {
  it('takes the upload', () => {
    expect(templateSourceOf({}, true)).toEqual({ kind: 'file' });
  });

  it('takes a stored template, with or without a version', () => {
    expect(templateSourceOf({ template_id: 'abc' }, false)).toEqual({ kind: 'stored', templateId: 'abc' });
    expect(templateSourceOf({ template_id: 'abc', template_version: '3' }, false)).toEqual({
      kind: 'stored',
      templateId: 'abc',
      version: 3,
    });
  });

  it('refuses both, and neither, naming both fields', () => {
    for (const [form, hasFile, type] of [
      [{ template_id: 'abc' }, true, 'invalid_request_structure'],
      [{}, false, 'missing_file'],
    ] as const) {
      let error: { errorType?: string; details?: Record<string, unknown> } = {};
      try {
        templateSourceOf(form, hasFile);
      } catch (e) {
        error = e as typeof error;
      }
      expect(error.errorType).toBe(type);
      expect(error.details?.fields).toEqual(['file', 'template_id']);
    }
  });

  it('names the lint endpoint’s upload field', () => {
    expect(() => templateSourceOf({ template_id: 'a' }, true, 'document')).toThrow(
      /'document' or 'template_id'/,
    );
  });

  it('refuses a version without an id, and a version that is not a positive integer', () => {
    expect(() => templateSourceOf({ template_version: '2' }, true)).toThrow(/goes with 'template_id'/);
    for (const v of ['0', '-1', '1.5', 'x']) {
      expect(() => templateSourceOf({ template_id: 'a', template_version: v }, false)).toThrow(
        /positive integer/,
      );
    }
  });
});
