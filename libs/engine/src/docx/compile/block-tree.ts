/**
 * Compile pass: folds the flat stream of block tags into blocks with their bodies: if/elif/else,
 * for/else, and the single-body blocks (set, macro, call, with, filter).
 */
import { isBalanced, isJinja, type Branch, type JinjaPart, type Part, type Report } from '../parts';

/** Opening statement type → the statement that ends it. */
export const BLOCK_END: Record<string, string> = {
  if: 'endif',
  for: 'endfor',
  setblock: 'endset',
  macro: 'endmacro',
  call: 'endcall',
  with: 'endwith',
  filter: 'endfilter',
};
export const OPENER_OF: Record<string, string> = Object.fromEntries(
  Object.entries(BLOCK_END).map(([open, end]) => [end, open]),
);
/**
 * Blocks nested deeper than this are refused (lint: `nested_error`). Python, and so docxtpl,
 * refuses a 21st nested loop ("too many statically nested blocks"); no real template nests more
 * than a handful, and the seed system's linter calls deeper nesting an error.
 */
export const MAX_BLOCK_DEPTH = 10;

/** How an author names the block in a message. */
const NAME: Record<string, string> = { setblock: 'set' };

export function buildTree(parsed: Part[], report: Report): Part[] {
  interface Open {
    part: JinjaPart;
    type: string;
    branches: Branch[];
    elseSeen: boolean;
  }
  const root: Part[] = [];
  const stack: Open[] = [];
  const body = (): Part[] => {
    const top = stack[stack.length - 1];
    return top ? top.branches[top.branches.length - 1].body : root;
  };
  const close = (open: Open) => {
    const { part } = open;
    for (const b of open.branches) {
      if (!isBalanced(b.body)) {
        report(
          part,
          `this ${NAME[open.type] ?? open.type} block and its end are in different parts of the document structure (for example different table cells or a table and the text after it); use {%p …%}, {%tr …%} or {%tc …%} tags or move them`,
        );
        break;
      }
    }
    if (open.type === 'if') part.branches = open.branches;
    else if (open.type === 'for') {
      part.loopBody = open.branches[0].body;
      part.loopElse = open.branches[1]?.body;
    } else part.body = open.branches[0].body;
  };
  for (const p of parsed) {
    if (!isJinja(p) || p.kind !== 'block') {
      if (!isJinja(p) || p.kind === 'expr') body().push(p);
      continue; // comments render nothing
    }
    const st = p.statement;
    if (!st) {
      body().push(p); // broken tag, already reported; rendering never happens
      continue;
    }
    const top = stack[stack.length - 1];
    if (BLOCK_END[st.type]) {
      if (stack.length === MAX_BLOCK_DEPTH)
        report(
          p,
          `blocks are nested more than ${MAX_BLOCK_DEPTH} deep here; join conditions with 'and' or 'elif', or move the inner part into a macro`,
        );
      body().push(p);
      stack.push({
        part: p,
        type: st.type,
        branches: [{ test: st.type === 'if' ? st.test : undefined, body: [] }],
        elseSeen: false,
      });
      continue;
    }
    if (OPENER_OF[st.type]) {
      const want = OPENER_OF[st.type];
      if (!top) report(p, `'${st.type}' without an open '${NAME[want] ?? want}'`);
      else if (top.type !== want)
        report(
          p,
          `'${st.type}' where the '${NAME[top.type] ?? top.type}' opened by ${top.part.source} should end first`,
        );
      else close(stack.pop()!);
      continue;
    }
    switch (st.type) {
      case 'elif':
        if (!top || top.type !== 'if') report(p, "'elif' without an open 'if'");
        else if (top.elseSeen) report(p, "'elif' after 'else'");
        else top.branches.push({ test: st.test, body: [] });
        break;
      case 'else':
        if (!top || (top.type !== 'if' && top.type !== 'for'))
          report(p, "'else' without an open 'if' or 'for'");
        else if (top.elseSeen) report(p, "a second 'else' in the same block");
        else {
          top.elseSeen = true;
          top.branches.push({ body: [] });
        }
        break;
      default:
        body().push(p); // set, and docxtpl's cell marks
    }
  }
  for (const open of stack.reverse())
    report(open.part, `'${NAME[open.type] ?? open.type}' has no '${BLOCK_END[open.type]}'`);
  return root;
}
