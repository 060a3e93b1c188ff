/**
 * Lexer and parser for the expressions and statements of the Jinja dialect (as docxtpl users write
 * them). Hand-written: no maintained JavaScript library parses Jinja expressions into an AST we
 * can evaluate under our own rules (nunjucks compiles to JavaScript and reaches real prototypes,
 * which is exactly what strangers' templates must not do).
 *
 * Precedence follows Jinja 3: conditional < or < and < not < comparison < + - < ~ < * / // % < **
 * < unary < postfix (.attr [item] (call)) and filters / tests.
 */
import { type Literal, PyFloat } from './literals';

export type Expr =
  | { type: 'Const'; value: Literal }
  | { type: 'Name'; name: string }
  | { type: 'Attr'; obj: Expr; name: string }
  | { type: 'Item'; obj: Expr; index: Expr }
  | { type: 'Slice'; obj: Expr; start?: Expr; stop?: Expr; step?: Expr }
  | { type: 'Call'; callee: Expr; args: Expr[]; kwargs: [string, Expr][] }
  | { type: 'Filter'; name: string; input: Expr; args: Expr[]; kwargs: [string, Expr][] }
  | { type: 'Test'; name: string; input: Expr; args: Expr[]; negated: boolean }
  | { type: 'Unary'; op: '-' | '+' | 'not'; operand: Expr }
  | { type: 'Binary'; op: BinaryOp; left: Expr; right: Expr }
  | { type: 'Compare'; first: Expr; ops: [CompareOp, Expr][] }
  | { type: 'Cond'; test: Expr; then: Expr; otherwise?: Expr }
  | { type: 'List'; items: Expr[] }
  | { type: 'Tuple'; items: Expr[] }
  | { type: 'Dict'; entries: [Expr, Expr][] };

export type BinaryOp = '+' | '-' | '*' | '/' | '//' | '%' | '**' | '~' | 'and' | 'or';
export type CompareOp = '==' | '!=' | '<' | '>' | '<=' | '>=' | 'in' | 'not in';

export type Statement =
  | { type: 'if'; test: Expr }
  | { type: 'elif'; test: Expr }
  | { type: 'else' }
  | { type: 'endif' }
  | { type: 'for'; targets: string[]; iter: Expr; filter?: Expr; recursive: boolean }
  | { type: 'endfor' }
  | { type: 'set'; targets: string[]; value: Expr; attr?: string }
  /** `{% set x %}…{% endset %}`, `{% set x | upper %}`: the body's output, through filters. */
  | { type: 'setblock'; target: string; filters: FilterCall[] }
  | { type: 'endset' }
  | { type: 'macro'; name: string; params: Param[] }
  | { type: 'endmacro' }
  | { type: 'call'; params: Param[]; call: Expr }
  | { type: 'endcall' }
  | { type: 'with'; assignments: [string, Expr][] }
  | { type: 'endwith' }
  | { type: 'filter'; filters: FilterCall[] }
  | { type: 'endfilter' }
  | { type: 'raw' }
  | { type: 'endraw' }
  /** docxtpl's table tags: vertical / horizontal merge in a loop, cell span, cell shading. */
  | { type: 'vm' }
  | { type: 'hm' }
  | { type: 'colspan'; value: Expr }
  | { type: 'cellbg'; value: Expr };

export interface Param {
  name: string;
  default?: Expr;
}

export interface FilterCall {
  name: string;
  args: Expr[];
  kwargs: [string, Expr][];
}

export class JinjaSyntaxError extends Error {}

type TokenType = 'name' | 'number' | 'string' | 'op' | 'eof';
interface Token {
  type: TokenType;
  value: string;
  num?: number;
  isFloat?: boolean;
  pos: number;
}

const OPERATORS = [
  '**',
  '//',
  '==',
  '!=',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '~',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '.',
  ',',
  ':',
  '|',
  '=',
];
// Word's AutoCorrect turns typed quotes into typographic ones; accept them as string quotes.
const DOUBLE_QUOTES = '"\u201c\u201d\u201e';
const SINGLE_QUOTES = "'\u2018\u2019\u201a";
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '0': '\0',
};

// Python 3 and Jinja take any Unicode letter in a name (`{{ versión }}`, `{{ 名前 }}`).
const NAME_START = /[\p{ID_Start}_]/u;
const NAME_CONTINUE = /\p{ID_Continue}/u;

/** The code point at i as a string (a CJK extension letter is two UTF-16 units). */
function charAt(src: string, i: number): string {
  return String.fromCodePoint(src.codePointAt(i)!);
}

/**
 * docxtpl straightens Word's curly quotes everywhere inside a tag before Jinja reads it, string
 * literals included: `{{ “It’s fine” }}` prints `It's fine`. („ and ‚, which it leaves, still
 * quote here.)
 */
function straightenQuotes(src: string): string {
  return src.replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"');
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\u00a0' || ch === '\u2009';
}

function tokenize(written: string): Token[] {
  const src = straightenQuotes(written);
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (isSpace(ch)) {
      i++;
      continue;
    }
    const start = i;
    if (NAME_START.test(charAt(src, i))) {
      while (i < src.length && NAME_CONTINUE.test(charAt(src, i))) i += charAt(src, i).length;
      tokens.push({ type: 'name', value: src.slice(start, i), pos: start });
      continue;
    }
    if (/[0-9]/.test(ch)) {
      const m = /^(?:[0-9][0-9_]*)(\.[0-9][0-9_]*)?([eE][+-]?[0-9]+)?/.exec(src.slice(i))!;
      const text = m[0];
      i += text.length;
      const isFloat = m[1] !== undefined || m[2] !== undefined;
      tokens.push({ type: 'number', value: text, num: Number(text.replace(/_/g, '')), isFloat, pos: start });
      continue;
    }
    const quoteFamily = DOUBLE_QUOTES.includes(ch)
      ? DOUBLE_QUOTES
      : SINGLE_QUOTES.includes(ch)
        ? SINGLE_QUOTES
        : '';
    if (quoteFamily) {
      i++;
      let value = '';
      for (;;) {
        if (i >= src.length) throw new JinjaSyntaxError('unterminated string');
        const c = src[i];
        if (c === '\\' && i + 1 < src.length) {
          value += ESCAPES[src[i + 1]] ?? '\\' + src[i + 1];
          i += 2;
          continue;
        }
        // A straight quote closes only a string it opened; typographic ones close their family.
        if (quoteFamily.includes(c) && (c === ch || (c !== '"' && c !== "'" && ch !== '"' && ch !== "'"))) {
          i++;
          break;
        }
        value += c;
        i++;
      }
      tokens.push({ type: 'string', value, pos: start });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) throw new JinjaSyntaxError(`unexpected character '${charAt(src, i)}'`);
    tokens.push({ type: 'op', value: op, pos: start });
    i += op.length;
  }
  tokens.push({ type: 'eof', value: '', pos: src.length });
  return tokens;
}

const COMPARE_OPS = new Set(['==', '!=', '<', '>', '<=', '>=']);
const RESERVED = new Set(['and', 'or', 'not', 'in', 'is', 'if', 'else']);

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private get cur(): Token {
    return this.tokens[this.i];
  }
  private next(): Token {
    return this.tokens[this.i++];
  }
  private isOp(v: string): boolean {
    return this.cur.type === 'op' && this.cur.value === v;
  }
  private isName(v: string): boolean {
    return this.cur.type === 'name' && this.cur.value === v;
  }
  private peekName(offset: number, v: string): boolean {
    const t = this.tokens[this.i + offset];
    return t !== undefined && t.type === 'name' && t.value === v;
  }
  expectOp(v: string): void {
    if (!this.isOp(v)) throw new JinjaSyntaxError(`expected '${v}' but found ${this.describe()}`);
    this.i++;
  }
  private expectName(): string {
    if (this.cur.type !== 'name') throw new JinjaSyntaxError(`expected a name but found ${this.describe()}`);
    return this.next().value;
  }
  describe(): string {
    const t = this.cur;
    if (t.type === 'eof') return 'the end of the tag';
    if (t.type === 'string') return `string '${t.value}'`;
    return `'${t.value}'`;
  }
  atEnd(): boolean {
    return this.cur.type === 'eof';
  }
  expectEnd(): void {
    if (!this.atEnd()) throw new JinjaSyntaxError(`unexpected ${this.describe()}`);
  }
  /** "unexpected 'x'", or "the tag ends too early" at its end. */
  unexpected(): JinjaSyntaxError {
    return new JinjaSyntaxError(this.atEnd() ? 'the tag ends too early' : `unexpected ${this.describe()}`);
  }

  /** A full expression; a bare comma list is a tuple (`for a, b in …` values, `set a, b = …`). */
  parseTupleOrExpr(): Expr {
    const first = this.parseExpr();
    if (!this.isOp(',')) return first;
    const items = [first];
    while (this.isOp(',')) {
      this.next();
      if (this.atEnd()) break;
      items.push(this.parseExpr());
    }
    return { type: 'Tuple', items };
  }

  parseExpr(): Expr {
    return this.parseCond();
  }

  private parseCond(): Expr {
    const then = this.parseOr();
    if (this.isName('if')) {
      this.next();
      const test = this.parseOr();
      let otherwise: Expr | undefined;
      if (this.isName('else')) {
        this.next();
        otherwise = this.parseCond();
      }
      return { type: 'Cond', test, then, otherwise };
    }
    return then;
  }

  /** Used by `for … in xs if cond`: an expression without a conditional tail. */
  parseOrExpr(): Expr {
    return this.parseOr();
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.isName('or')) {
      this.next();
      left = { type: 'Binary', op: 'or', left, right: this.parseAnd() };
    }
    return left;
  }
  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.isName('and')) {
      this.next();
      left = { type: 'Binary', op: 'and', left, right: this.parseNot() };
    }
    return left;
  }
  private parseNot(): Expr {
    if (this.isName('not')) {
      this.next();
      return { type: 'Unary', op: 'not', operand: this.parseNot() };
    }
    return this.parseCompare();
  }
  private parseCompare(): Expr {
    const first = this.parseMath1();
    const ops: [CompareOp, Expr][] = [];
    for (;;) {
      if (this.cur.type === 'op' && COMPARE_OPS.has(this.cur.value)) {
        const op = this.next().value as CompareOp;
        ops.push([op, this.parseMath1()]);
      } else if (this.isName('in')) {
        this.next();
        ops.push(['in', this.parseMath1()]);
      } else if (this.isName('not') && this.peekName(1, 'in')) {
        this.i += 2;
        ops.push(['not in', this.parseMath1()]);
      } else break;
    }
    return ops.length ? { type: 'Compare', first, ops } : first;
  }
  private parseMath1(): Expr {
    let left = this.parseConcat();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().value as BinaryOp;
      left = { type: 'Binary', op, left, right: this.parseConcat() };
    }
    return left;
  }
  private parseConcat(): Expr {
    let left = this.parseMath2();
    while (this.isOp('~')) {
      this.next();
      left = { type: 'Binary', op: '~', left, right: this.parseMath2() };
    }
    return left;
  }
  private parseMath2(): Expr {
    let left = this.parsePow();
    while (this.isOp('*') || this.isOp('/') || this.isOp('//') || this.isOp('%')) {
      const op = this.next().value as BinaryOp;
      left = { type: 'Binary', op, left, right: this.parsePow() };
    }
    return left;
  }
  private parsePow(): Expr {
    let left = this.parseUnary(true);
    while (this.isOp('**')) {
      this.next();
      left = { type: 'Binary', op: '**', left, right: this.parseUnary(true) };
    }
    return left;
  }
  private parseUnary(withFilter: boolean): Expr {
    let node: Expr;
    if (this.isOp('-') || this.isOp('+')) {
      const op = this.next().value as '-' | '+';
      node = { type: 'Unary', op, operand: this.parseUnary(false) };
    } else {
      node = this.parsePrimary();
    }
    node = this.parsePostfix(node);
    if (withFilter) node = this.parseFilterExpr(node);
    return node;
  }

  private parsePrimary(): Expr {
    const t = this.cur;
    if (t.type === 'name') {
      if (RESERVED.has(t.value)) throw new JinjaSyntaxError(`unexpected '${t.value}'`);
      this.next();
      switch (t.value) {
        case 'true':
        case 'True':
          return { type: 'Const', value: true };
        case 'false':
        case 'False':
          return { type: 'Const', value: false };
        case 'none':
        case 'None':
          return { type: 'Const', value: null };
      }
      return { type: 'Name', name: t.value };
    }
    if (t.type === 'string') {
      let value = this.next().value;
      while (this.cur.type === 'string') value += this.next().value; // "a" "b" → "ab", as in Jinja
      return { type: 'Const', value };
    }
    if (t.type === 'number') {
      this.next();
      const n = t.num!;
      return { type: 'Const', value: t.isFloat && Number.isInteger(n) ? floatConst(n) : n };
    }
    if (this.isOp('(')) {
      this.next();
      if (this.isOp(')')) {
        this.next();
        return { type: 'Tuple', items: [] };
      }
      const inner = this.parseExpr();
      if (this.isOp(',')) {
        const items = [inner];
        while (this.isOp(',')) {
          this.next();
          if (this.isOp(')')) break;
          items.push(this.parseExpr());
        }
        this.expectOp(')');
        return { type: 'Tuple', items };
      }
      this.expectOp(')');
      return inner;
    }
    if (this.isOp('[')) {
      this.next();
      const items: Expr[] = [];
      while (!this.isOp(']')) {
        items.push(this.parseExpr());
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expectOp(']');
      return { type: 'List', items };
    }
    if (this.isOp('{')) {
      this.next();
      const entries: [Expr, Expr][] = [];
      while (!this.isOp('}')) {
        const key = this.parseExpr();
        this.expectOp(':');
        entries.push([key, this.parseExpr()]);
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expectOp('}');
      return { type: 'Dict', entries };
    }
    throw this.unexpected();
  }

  private parsePostfix(node: Expr): Expr {
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        const t = this.cur;
        if (t.type === 'name') {
          this.next();
          node = { type: 'Attr', obj: node, name: t.value };
        } else if (t.type === 'number' && !t.isFloat) {
          this.next(); // foo.0 is foo[0] in Jinja
          node = { type: 'Item', obj: node, index: { type: 'Const', value: t.num! } };
        } else
          throw new JinjaSyntaxError(`expected an attribute name after '.' but found ${this.describe()}`);
      } else if (this.isOp('[')) {
        this.next();
        node = this.parseSubscript(node);
      } else if (this.isOp('(')) {
        node = this.parseCall(node);
      } else return node;
    }
  }

  private parseSubscript(obj: Expr): Expr {
    const parts: (Expr | undefined)[] = [undefined];
    let isSlice = false;
    for (;;) {
      if (this.isOp(']')) break;
      if (this.isOp(':')) {
        this.next();
        isSlice = true;
        parts.push(undefined);
        if (parts.length > 3) throw new JinjaSyntaxError('too many colons in slice');
        continue;
      }
      if (parts[parts.length - 1] !== undefined) throw this.unexpected();
      parts[parts.length - 1] = this.parseExpr();
    }
    this.expectOp(']');
    if (!isSlice) {
      if (!parts[0]) throw new JinjaSyntaxError('empty subscript');
      return { type: 'Item', obj, index: parts[0] };
    }
    return { type: 'Slice', obj, start: parts[0], stop: parts[1], step: parts[2] };
  }

  private parseArgs(): { args: Expr[]; kwargs: [string, Expr][] } {
    this.expectOp('(');
    const args: Expr[] = [];
    const kwargs: [string, Expr][] = [];
    while (!this.isOp(')')) {
      const t = this.cur;
      const n = this.tokens[this.i + 1];
      if (t.type === 'name' && n?.type === 'op' && n.value === '=') {
        this.i += 2;
        kwargs.push([t.value, this.parseExpr()]);
      } else {
        if (kwargs.length) throw new JinjaSyntaxError('positional argument after keyword argument');
        args.push(this.parseExpr());
      }
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expectOp(')');
    return { args, kwargs };
  }

  private parseCall(callee: Expr): Expr {
    const { args, kwargs } = this.parseArgs();
    return { type: 'Call', callee, args, kwargs };
  }

  private parseFilterExpr(node: Expr): Expr {
    for (;;) {
      if (this.isOp('|')) {
        this.next();
        let name = this.expectName();
        while (this.isOp('.')) {
          this.next();
          name += '.' + this.expectName();
        }
        let args: Expr[] = [];
        let kwargs: [string, Expr][] = [];
        if (this.isOp('(')) ({ args, kwargs } = this.parseArgs());
        node = { type: 'Filter', name, input: node, args, kwargs };
      } else if (this.isName('is')) {
        this.next();
        let negated = false;
        if (this.isName('not')) {
          this.next();
          negated = true;
        }
        const t = this.cur;
        let name: string;
        // `is none`, `is true`, `is false`: Jinja lexes these as constants, tests all the same.
        if (t.type === 'name') name = this.next().value;
        else if (t.type === 'op' && COMPARE_OPS.has(t.value)) name = this.next().value;
        else throw new JinjaSyntaxError(`expected a test name after 'is' but found ${this.describe()}`);
        let args: Expr[] = [];
        if (this.isOp('(')) args = this.parseArgs().args;
        else if (
          this.cur.type === 'number' ||
          this.cur.type === 'string' ||
          this.isOp('[') ||
          this.isOp('{') ||
          (this.cur.type === 'name' && !RESERVED.has(this.cur.value))
        ) {
          // `x is divisibleby 3`, `x is sameas none`: one bare argument, as Jinja allows.
          args = [this.parsePostfix(this.parsePrimary())];
        }
        node = {
          type: 'Test',
          name: name.toLowerCase() === 'none' ? 'none' : name,
          input: node,
          args,
          negated,
        };
      } else return node;
    }
  }

  expectNameToken(): string {
    return this.expectName();
  }
  /** Filters (and tests) applied to `node`: `node|a(1)|b`. */
  parseFilterChain(node: Expr): Expr {
    return this.parseFilterExpr(node);
  }

  parseTargets(): string[] {
    const targets = [this.expectName()];
    while (this.isOp(',')) {
      this.next();
      targets.push(this.expectName());
    }
    if (targets.some((t) => RESERVED.has(t)))
      throw new JinjaSyntaxError('a keyword cannot be a loop variable');
    return targets;
  }

  nameIs(v: string): boolean {
    return this.isName(v);
  }
  skip(): void {
    this.i++;
  }
  opIs(v: string): boolean {
    return this.isOp(v);
  }
}

function floatConst(n: number): Literal {
  return new PyFloat(n);
}

export function parseExpression(src: string): Expr {
  const p = new Parser(tokenize(src));
  if (p.atEnd()) throw new JinjaSyntaxError('empty expression');
  const e = p.parseExpr();
  p.expectEnd();
  return e;
}

const BLOCK_KEYWORDS = new Set([
  'if',
  'elif',
  'else',
  'endif',
  'for',
  'endfor',
  'set',
  'endset',
  'macro',
  'endmacro',
  'call',
  'endcall',
  'with',
  'endwith',
  'filter',
  'endfilter',
  'raw',
  'endraw',
  'vm',
  'hm',
  'colspan',
  'cellbg',
]);
/** Jinja tags that need other template files or extensions: there are none to load here. */
const NOT_HERE: Record<string, string> = {
  include: 'a template renders on its own: there are no other templates to include',
  import: 'a template renders on its own: there are no other templates to import from',
  from: 'a template renders on its own: there are no other templates to import from',
  extends: 'a template renders on its own: there is no parent template to extend',
  block: 'template inheritance blocks need a parent template, and there is none',
  break: "'break' needs Jinja's loopcontrols extension, which docxtpl does not enable",
  continue: "'continue' needs Jinja's loopcontrols extension, which docxtpl does not enable",
  do: "'do' needs Jinja's do extension, which docxtpl does not enable",
};

class StatementParser extends Parser {
  params(): Param[] {
    const params: Param[] = [];
    this.expectOp('(');
    while (!this.opIs(')')) {
      const name = this.expectNameToken();
      let def: Expr | undefined;
      if (this.opIs('=')) {
        this.skip();
        def = this.parseExpr();
      } else if (params.some((q) => q.default))
        throw new JinjaSyntaxError('a parameter without a default follows one with a default');
      params.push({ name, default: def });
      if (!this.opIs(',')) break;
      this.skip();
    }
    this.expectOp(')');
    return params;
  }

  filterCalls(): FilterCall[] {
    const out: FilterCall[] = [];
    const probe = this.parseFilterChain({ type: 'Const', value: null });
    for (let e: Expr = probe; e.type === 'Filter'; e = e.input)
      out.unshift({ name: e.name, args: e.args, kwargs: e.kwargs });
    return out;
  }
}

/** The inside of a `{% … %}` tag, without its placement prefix and whitespace-control marks. */
export function parseStatement(src: string): Statement {
  const p = new StatementParser(tokenize(src));
  if (p.atEnd()) throw new JinjaSyntaxError('empty tag');
  const keyword = src.trim().split(/[^A-Za-z0-9_]/)[0];
  if (!BLOCK_KEYWORDS.has(keyword) || !p.nameIs(keyword)) {
    if (NOT_HERE[keyword]) throw new JinjaSyntaxError(`'${keyword}' is not supported: ${NOT_HERE[keyword]}`);
    throw new JinjaSyntaxError(`unknown tag '${src.trim().split(/\s+/)[0]}'`);
  }
  p.skip();
  let st: Statement;
  switch (keyword) {
    case 'if':
    case 'elif':
      st = { type: keyword, test: p.parseExpr() };
      break;
    case 'colspan':
    case 'cellbg':
      st = { type: keyword, value: p.parseExpr() };
      break;
    case 'else':
    case 'endif':
    case 'endfor':
    case 'endset':
    case 'endmacro':
    case 'endcall':
    case 'endwith':
    case 'endfilter':
    case 'raw':
    case 'endraw':
    case 'vm':
    case 'hm':
      st = { type: keyword };
      break;
    case 'for': {
      const targets = p.parseTargets();
      if (!p.nameIs('in')) throw new JinjaSyntaxError(`expected 'in' after the loop variable`);
      p.skip();
      const iter = p.parseOrExpr();
      let filter: Expr | undefined;
      if (p.nameIs('if')) {
        p.skip();
        filter = p.parseOrExpr();
      }
      let recursive = false;
      if (p.nameIs('recursive')) {
        p.skip();
        recursive = true;
      }
      st = { type: 'for', targets, iter, filter, recursive };
      break;
    }
    case 'set': {
      const targets = p.parseTargets();
      let attr: string | undefined;
      if (targets.length === 1 && p.opIs('.')) {
        p.skip();
        attr = p.expectNameToken(); // `set ns.count = …` (a namespace's attribute)
      }
      if (p.opIs('=')) {
        p.skip();
        st = { type: 'set', targets, value: p.parseTupleOrExpr(), attr };
      } else if (targets.length === 1 && !attr) {
        st = { type: 'setblock', target: targets[0], filters: p.opIs('|') ? p.filterCalls() : [] };
      } else throw new JinjaSyntaxError(`expected '=' in the set tag but found ${p.describe()}`);
      break;
    }
    case 'macro': {
      const name = p.expectNameToken();
      st = { type: 'macro', name, params: p.opIs('(') ? p.params() : [] };
      break;
    }
    case 'call': {
      const params = p.opIs('(') ? p.params() : [];
      const call = p.parseExpr();
      if (call.type !== 'Call')
        throw new JinjaSyntaxError("'call' expects a macro call, e.g. {% call m() %}");
      st = { type: 'call', params, call };
      break;
    }
    case 'with': {
      const assignments: [string, Expr][] = [];
      while (!p.atEnd()) {
        const name = p.expectNameToken();
        p.expectOp('=');
        assignments.push([name, p.parseExpr()]);
        if (!p.opIs(',')) break;
        p.skip();
      }
      st = { type: 'with', assignments };
      break;
    }
    case 'filter': {
      // `{% filter upper|trim %}`: the chain, as if it followed a value's bar
      const q = new StatementParser(tokenize('|' + src.trim().slice('filter'.length)));
      st = { type: 'filter', filters: q.filterCalls() };
      q.expectEnd();
      return st;
    }
    default:
      throw new JinjaSyntaxError(`unknown tag '${keyword}'`);
  }
  p.expectEnd();
  return st;
}
