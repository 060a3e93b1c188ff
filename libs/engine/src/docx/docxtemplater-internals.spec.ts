/**
 * render-compiled.ts and join-uncorrupt.ts import docxtemplater's private js/*.js files, which its
 * package does not promise to keep: so package.json pins docxtemplater exactly, and this spec fails
 * when an upgrade moves or reshapes one of them, before a render does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PRIVATE_FILES = {
  'docxtemplater/js/render.js': 'function',
  'docxtemplater/js/postrender.js': 'function',
  'docxtemplater/js/join-uncorrupt.js': 'function',
  'docxtemplater/js/modules/space-preserve.js': 'function',
  'docxtemplater/js/filetypes.js': 'object',
  'docxtemplater/js/file-type-config.js': 'object',
} as const;

describe("docxtemplater's private files", () => {
  it('is pinned to one exact version in package.json, the version installed', () => {
    const root = join(__dirname, '../../../..');
    const wanted = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies.docxtemplater;
    expect(wanted).toMatch(/^\d+\.\d+\.\d+$/);
    expect((require('docxtemplater/package.json') as { version: string }).version).toBe(wanted);
  });

  it.each(Object.entries(PRIVATE_FILES))('%s exports a %s', (file, kind) => {
    expect(typeof require(file)).toBe(kind);
  });

  it("doc-utils still has xml2str, and filetypes still lists Word's main document", () => {
    expect(typeof (require('docxtemplater/js/doc-utils.js') as { xml2str: unknown }).xml2str).toBe(
      'function',
    );
    const filetypes = require('docxtemplater/js/filetypes.js') as { docx: string[] };
    expect(filetypes.docx).toContain(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    );
  });
});
