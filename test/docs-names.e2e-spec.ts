/**
 * The README and docs/ name only what exists: every repository path they write (`libs/…`,
 * `apps/…`, a relative link) is a tracked file or folder, and every PascalCase name in backticks
 * (a class, an error, a schema) is written in the code (comments aside), or is another program's,
 * listed below with whose it is. A rename that leaves the docs behind fails here.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const ROOT = join(__dirname, '..');
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const trackedPaths = new Set(tracked);
for (const file of tracked) {
  const parts = file.split('/');
  for (let i = 1; i < parts.length; i++) trackedPaths.add(parts.slice(0, i).join('/'));
}

/** Names of other programs the docs mention (not ours to export). */
const OTHER_PROGRAMS: Record<string, string> = {
  SubstFonts: "LibreOffice's font replacement table",
  RichTextParagraph: "docxtpl's Python class",
  ApplyParagraphPropertiesFromTableStyle: "LibreOffice's DOCX import (writerfilter)",
};

/** Identifiers and string words of the code, comments left out (they may be stale themselves). */
const codeWords = new Set<string>();
for (const file of tracked) {
  // This file names stale things on purpose (its own check below).
  if (!/\.(ts|js|mjs|cjs|py|ya?ml|html)$/.test(file) || file === 'test/docs-names.e2e-spec.ts') continue;
  const text = readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
    .replace(/^\s*#.*$/gm, '');
  for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) codeWords.add(word);
}

const DOCS = tracked.filter((f) => f === 'README.md' || /^docs\/.*\.md$/.test(f) || f === 'bench/README.md');
const REPO_PATH = /^((?:apps|libs|test|bench|scripts|docs|examples|deploy)\/[A-Za-z0-9_./-]+?)(?::\d+)?\/?$/;
const PASCAL = /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/;

/** What `text`, a document at `doc`, names that does not exist. */
function problemsIn(text: string, doc: string): string[] {
  const problems: string[] = [];
  for (const [, token] of text.matchAll(/`([^`\n]+)`/g)) {
    const t = token.trim();
    const path = REPO_PATH.exec(t)?.[1];
    if (path && !path.includes('*') && !trackedPaths.has(path)) problems.push(`path ${path}`);
    if (PASCAL.test(t) && !codeWords.has(t) && !OTHER_PROGRAMS[t]) problems.push(`name ${t}`);
  }
  for (const [, link] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    if (/^[a-z]+:/.test(link)) continue; // http(s), mailto
    const target = normalize(join(dirname(doc), link)).replace(/\/$/, '');
    if (!trackedPaths.has(target)) problems.push(`link ${link}`);
  }
  return problems;
}

describe('the documentation names what exists', () => {
  it('reads the README and every file of docs/', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/service.md', 'docs/architecture.md']));
  });

  it.each(DOCS)('%s names only existing paths and names', (doc) => {
    expect(problemsIn(readFileSync(join(ROOT, doc), 'utf8'), doc)).toEqual([]);
  });

  it('would catch a stale path, name or link', () => {
    const stale = '`apps/api/src/config/service-config.ts`, `TransportedRenderingError`, [api](docs/nope.md)';
    expect(problemsIn(stale, 'README.md')).toEqual([
      'path apps/api/src/config/service-config.ts',
      'name TransportedRenderingError',
      'link docs/nope.md',
    ]);
    expect(
      problemsIn('`libs/config/src/settings.ts`, `TransportedError`, [x](docs/api.md)', 'README.md'),
    ).toEqual([]);
  });
});
