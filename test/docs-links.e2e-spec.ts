/**
 * Every link of the README and docs/ reaches something: a tracked file, and when it names a
 * section (`file.md#section`, `#section`), a heading of that file, by GitHub's anchor rule. The
 * files' own comments that send the reader to a section (`docs/x.md, "Heading"`) are checked the
 * same way. (test/docs-names.e2e-spec.ts checks the paths and names the docs write.)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const ROOT = join(__dirname, '..');
const tracked = new Set(
  execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean),
);
const MARKDOWN = [...tracked].filter((f) => f === 'README.md' || /^(docs|bench)\/.*\.md$/.test(f));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();
/** The anchors of a Markdown file's headings (repeated ones get -1, -2, … as on GitHub). */
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (anchors) return anchors;
  anchors = new Set();
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = anchorOf(heading);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  for (const [, id] of text.matchAll(/<a (?:name|id)="([^"]+)"/g)) anchors.add(id);
  anchorCache.set(file, anchors);
  return anchors;
}

/** What is wrong with one link target written in `from`. */
function problemOf(from: string, target: string): string | undefined {
  if (/^[a-z]+:/i.test(target)) return undefined; // http(s), mailto: not ours to check here
  const [path, section] = target.split('#') as [string, string | undefined];
  const file = path === '' ? from : normalize(join(dirname(from), decodeURI(path))).replace(/\/$/, '');
  if (!tracked.has(file) && ![...tracked].some((f) => f.startsWith(`${file}/`)))
    return `${target}: no file ${file}`;
  if (section === undefined || !file.endsWith('.md')) return undefined;
  return anchorsOf(file).has(section) ? undefined : `${target}: no heading #${section} in ${file}`;
}

function linkProblems(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const targets = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
  return targets.map((t) => problemOf(file, t)).filter((p): p is string => p !== undefined);
}

/** Section references in code comments: `docs/architecture.md, "What each library owns"`. */
function sectionReferences(file: string): { count: number; problems: string[] } {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const problems: string[] = [];
  let count = 0;
  for (const [, doc, heading] of text.matchAll(/((?:docs\/[\w./-]+|README)\.md),?\s+["“]([^"”\n]+)["”]/g)) {
    count++;
    if (!tracked.has(doc)) problems.push(`${doc}: no such file`);
    else if (!anchorsOf(doc).has(anchorOf(heading))) problems.push(`${doc}: no heading "${heading}"`);
  }
  return { count, problems };
}

describe('the links of the documentation', () => {
  it('reads the README and docs/', () => {
    expect(MARKDOWN).toEqual(
      expect.arrayContaining(['README.md', 'docs/service.md', 'docs/architecture.md']),
    );
  });

  it.each(MARKDOWN)('%s: every link reaches a file, and its section a heading', (file) => {
    expect(linkProblems(file)).toEqual([]);
  });

  it("the sections the lint configuration's comments name exist", () => {
    const { count, problems } = sectionReferences('eslint.config.mjs');
    expect(count).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    expect(sectionReferences('.dependency-cruiser.cjs').problems).toEqual([]);
  });

  it('would catch a missing file, a missing section and a stale section reference', () => {
    expect(anchorOf('Where to read on')).toBe('where-to-read-on');
    expect(anchorOf('`loadSettings`: one loader (2 files)')).toBe('loadsettings-one-loader-2-files');
    expect(problemOf('docs/service.md', '../README.md#quick-start')).toBeUndefined();
    expect(problemOf('docs/service.md', '../README.md#layout')).toBe(
      '../README.md#layout: no heading #layout in README.md',
    );
    expect(problemOf('docs/service.md', 'nope.md')).toBe('nope.md: no file docs/nope.md');
    expect(problemOf('README.md', 'docs/api.md')).toBeUndefined();
  });
});
