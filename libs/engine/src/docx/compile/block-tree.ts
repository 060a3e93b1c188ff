/** Compile pass: folds the flat stream of block tags into if/for blocks with their bodies. */
import { isBalanced, isJinja, type Branch, type JinjaPart, type Part, type Report } from '../parts';

export function buildTree(parsed: Part[], report: Report): Part[] {
  interface Open {
    part: JinjaPart;
    type: 'if' | 'for';
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
          `this ${open.type} block and its end are in different parts of the document structure (for example different table cells or a table and the text after it); use {%p …%}, {%tr …%} or {%tc …%} tags or move them`,
        );
        break;
      }
    }
    if (open.type === 'if') part.branches = open.branches;
    else {
      part.loopBody = open.branches[0].body;
      part.loopElse = open.branches[1]?.body;
    }
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
    switch (st.type) {
      case 'if':
      case 'for':
        body().push(p);
        stack.push({
          part: p,
          type: st.type,
          branches: [{ test: st.type === 'if' ? st.test : undefined, body: [] }],
          elseSeen: false,
        });
        break;
      case 'elif':
        if (!top || top.type !== 'if') report(p, "'elif' without an open 'if'");
        else if (top.elseSeen) report(p, "'elif' after 'else'");
        else top.branches.push({ test: st.test, body: [] });
        break;
      case 'else':
        if (!top) report(p, "'else' without an open 'if' or 'for'");
        else if (top.elseSeen) report(p, "a second 'else' in the same block");
        else {
          top.elseSeen = true;
          top.branches.push({ body: [] });
        }
        break;
      case 'endif':
      case 'endfor': {
        const want = st.type === 'endif' ? 'if' : 'for';
        if (!top) report(p, `'${st.type}' without an open '${want}'`);
        else if (top.type !== want)
          report(p, `'${st.type}' where the '${top.type}' opened by ${top.part.source} should end first`);
        else close(stack.pop()!);
        break;
      }
      case 'set':
        body().push(p);
        break;
    }
  }
  for (const open of stack.reverse()) report(open.part, `'${open.type}' has no 'end${open.type}'`);
  return root;
}
