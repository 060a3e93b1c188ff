import { evaluate, Frame } from './evaluator';
import { jinjaEnvironment } from './environment';
import { DEFAULT_EVAL_LIMITS, JinjaRuntimeError, RenderState } from './ops';
import { JinjaSyntaxError, parseExpression, parseStatement } from '../syntax/parser';
import { percentFormat, pyRound } from './pyformat';
import { str, tuple, type Dict, type Value } from './values';
import {
  EXPRESSION_DATA_JSON,
  FILTER_CASES,
  GLOBAL_CASES,
  METHOD_CASES,
  OPERATORS,
  TEST_CASES,
} from '../../../../test/support/expression-cases';

const DATA = JSON.parse(EXPRESSION_DATA_JSON) as Dict;

const JINJA = jinjaEnvironment();

function run(src: string, data: Dict = DATA, strict = false): { out: string; st: RenderState } {
  const st = new RenderState(JINJA, data, new Set(['logo']), strict, {
    ...DEFAULT_EVAL_LIMITS,
    maxLoopIterations: 1000,
    maxValueLength: 10_000,
  });
  return { out: str(evaluate(parseExpression(src), new Frame(), st)), st };
}
const out = (src: string) => run(src).out;

describe('expressions: literals, operators and Python number printing', () => {
  it.each(OPERATORS)('%s → %s', (src, expected) => {
    expect(out(src)).toBe(expected);
  });
});

describe('expressions: access to data', () => {
  it.each([
    ['items[0].name', 'Pen'],
    ['items.1.name', 'Ink'],
    ["d['a b']", '1'],
    ['xs[-1]', '2'],
    ['xs[1:]', '[1, 2]'],
    ['s[::-1]', 'dlrow olleh'],
    ['s[0]', 'h'],
    ['order.items', "['from data']"],
    ['order.items()', "[('items', ['from data']), ('total', 7)]"],
    ['d.get("k")', 'v'],
    ['d.get("zz", "dflt")', 'dflt'],
    ['d.keys()|list', "['a b', 'k']"],
    ['s.upper()', 'HELLO WORLD'],
    ['s.split()', "['hello', 'world']"],
    ['s.replace("o", "0")', 'hell0 w0rld'],
    ['"  x ".strip()', 'x'],
    ['range(3)|list', '[0, 1, 2]'],
    ['range(1, 10, 4)|list', '[1, 5, 9]'],
    ['missing', ''],
    ['missing.deeper[0]', ''],
    ['nothing', 'None'],
  ])('%s → %s', (src, expected) => {
    expect(out(src)).toBe(expected);
  });
});

describe('filters', () => {
  it.each(FILTER_CASES)('%s → %s', (src, expected) => {
    expect(out(src)).toBe(expected);
  });
});

describe('str methods', () => {
  it.each(METHOD_CASES)('%s → %s', (src, expected) => {
    expect(out(src)).toBe(expected);
  });
});

describe('globals', () => {
  it.each(GLOBAL_CASES)('%s → %s', (src, expected) => {
    expect(out(src)).toBe(expected);
  });
});
describe('tests (is …)', () => {
  it.each(TEST_CASES)('%s → %s', (src, expected) => {
    expect(out(src)).toBe(expected);
  });
});

describe('strings Word writes', () => {
  it('accepts typographic quotes as string quotes', () => {
    expect(out('\u201chello\u201d ~ \u2018 x\u2019')).toBe('hello x');
    expect(out('missing|default(\u201cn/a\u201d)')).toBe('n/a');
  });
  it('straightens curly quotes inside string literals too, as docxtpl does (issue 23)', () => {
    expect(out('\u201cIt\u2019s fine\u201d')).toBe("It's fine");
    expect(out('\u2018say \u201chi\u201d\u2019')).toBe('say "hi"');
    // docxtpl then hands Jinja 'It's': a syntax error there, and here.
    expect(() => parseExpression('\u2018It\u2019s\u2019')).toThrow(JinjaSyntaxError);
  });
  it('accepts escapes inside strings', () => {
    expect(out('"a\\"b"')).toBe('a"b');
  });
});

describe('names in any alphabet (issue 23)', () => {
  it.each([
    ['versión', 'v'],
    ['propósito_documento', 'p'],
    ['участник', 'у'],
    ['адрес_участника.город', 'г'],
    ['名前', '名'],
    ['müşteri.adı', 'ı'],
    ['𠮷野家', '𠮷'],
  ])('reads %j as a name', (src, _first) => {
    const data = JSON.parse(
      '{"versión":"v","propósito_documento":"p","участник":"у","адрес_участника":{"город":"г"},"名前":"名","müşteri":{"adı":"ı"},"𠮷野家":"𠮷"}',
    ) as Dict;
    expect(run(src, data).out).toBe(_first);
  });
  it('still refuses characters that are not letters', () => {
    expect(() => parseExpression('a € b')).toThrow("unexpected character '€'");
    expect(() => parseExpression('a 😀')).toThrow("unexpected character '😀'");
  });
});

describe('syntax errors', () => {
  it.each([
    ['', 'empty expression'],
    ['a +', 'the tag ends too early'],
    ['a b', "unexpected 'b'"],
    ['(a', "expected ')'"],
    ['"open', 'unterminated string'],
    ['a $ b', "unexpected character '$'"],
    ['items[', 'the tag ends too early'],
  ])('%j is refused (%s)', (src, message) => {
    expect(() => parseExpression(src)).toThrow(JinjaSyntaxError);
    expect(() => parseExpression(src)).toThrow(message);
  });

  it('parses the statements of the dialect', () => {
    expect(parseStatement(' for k, v in d.items() if v ')).toMatchObject({
      type: 'for',
      targets: ['k', 'v'],
    });
    expect(parseStatement('set total = a + b')).toMatchObject({ type: 'set', targets: ['total'] });
    expect(parseStatement('elif x > 1')).toMatchObject({ type: 'elif' });
    expect(parseStatement('macro m(a, b=1)')).toMatchObject({ type: 'macro', name: 'm' });
    expect(parseStatement('cellbg "FF0000"')).toMatchObject({ type: 'cellbg' });
    expect(parseStatement('colspan n + 1')).toMatchObject({ type: 'colspan' });
    expect(parseStatement('vm')).toEqual({ type: 'vm' });
    expect(parseStatement('set ns.total = 1')).toMatchObject({ type: 'set', attr: 'total' });
    expect(parseStatement('set x | upper')).toMatchObject({ type: 'setblock', filters: [{ name: 'upper' }] });
    expect(parseStatement('filter upper|trim')).toMatchObject({ type: 'filter' });
    expect(parseStatement('for n in tree recursive')).toMatchObject({ type: 'for', recursive: true });
    expect(parseStatement('call(x) m(1)')).toMatchObject({ type: 'call', params: [{ name: 'x' }] });
    expect(() => parseStatement('include "x.docx"')).toThrow("'include' is not supported");
    expect(() => parseStatement('macro m(a=1, b)')).toThrow('without a default');
    expect(() => parseStatement('frobnicate')).toThrow("unknown tag 'frobnicate'");
    expect(() => parseStatement('for in xs')).toThrow(JinjaSyntaxError);
    expect(() => parseStatement('if')).toThrow(JinjaSyntaxError);
    expect(() => parseStatement('endif extra')).toThrow("unexpected 'extra'");
  });
});

describe('runtime errors name their cause', () => {
  it.each([
    ['n / 0', 'division by zero'],
    ['"a" + 1', "unsupported operand type(s) for +: 'str' and 'int'"],
    ['"a" < 1', "'<' not supported between instances of 'str' and 'int'"],
    ['n()', "'int' object is not callable"],
    ['"%d"|format("x")', 'format: %d format: a real number is required, not str'],
    ['range(10**6)|list', 'loop iterations'],
    ["'x' * 100000", 'longer than'],
    ['nothing|list', "'NoneType' object is not iterable"],
    ['s.nope()', "'str' object has no method 'nope'"],
    ['missing.method()', "'missing.method' is undefined and cannot be called"],
    ['"{:d}".format(f)', "str.format: unknown format code 'd' for object of type 'float'"],
  ])('%s', (src, message) => {
    expect(() => out(src)).toThrow(JinjaRuntimeError);
    expect(() => out(src)).toThrow(message);
  });
});

describe('safety: templates cannot reach JavaScript objects', () => {
  const payloads = [
    'constructor',
    'constructor.constructor',
    "constructor.constructor('return process')()",
    "''.constructor.constructor('return process')()",
    's.constructor',
    "s['constructor']['constructor']('return this')()",
    'xs.constructor.prototype',
    'xs.__proto__',
    "d['__proto__']",
    'd.__proto__.polluted',
    '__class__',
    's.__class__.__mro__[1].__subclasses__()',
    'cycler.__init__.__globals__.os.popen("id").read()',
    'joiner.__init__.__globals__',
    'namespace.__init__.__globals__',
    'lipsum.__globals__["os"]',
    'self.__init__.__globals__',
    'range.__globals__',
    'range.constructor',
    '[].pop',
    'xs.push(1)',
    'loop.__class__',
    'config.items()',
    'request.application',
    'process.env',
    'globalThis',
    'this',
    'require("child_process")',
    'd.toString()',
    'd.hasOwnProperty("k")',
    'd.valueOf',
  ];
  it.each(payloads)('%s reaches nothing', (src) => {
    let result: string | undefined;
    try {
      result = run(src).out;
    } catch (e) {
      // A refusal is fine; it must be ours, not a JavaScript TypeError from a real object.
      expect(e).toBeInstanceOf(JinjaRuntimeError);
      return;
    }
    expect(result).not.toMatch(/function|native code|\[object|process|Object|prototype/i);
  });

  it('a data key named __proto__ is data, and pollutes nothing', () => {
    expect(out('d.k')).toBe('v');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(out('__proto__.polluted')).toBe('True'); // the JSON key itself, an own property
    expect(out('{"__proto__": 1}|list')).toBe("['__proto__']");
    expect(({} as Record<string, unknown>)['1']).toBeUndefined();
  });
});

describe('strict mode', () => {
  it('records every undefined name that is used, but not those given a default or tested', () => {
    const { st } = run('a ~ b.c ~ (x|default("")) ~ (y is defined) ~ a', DATA, true);
    expect(st.undefinedNames).toEqual(['a', 'b.c']);
  });
});

describe('pyformat', () => {
  it('rounds half to even on the exact binary value, like Python', () => {
    expect(pyRound(0.125, 2)).toBe(0.12);
    expect(pyRound(0.375, 2)).toBe(0.38);
    expect(pyRound(2.675, 2)).toBe(2.67);
    expect(pyRound(-2.5, 0)).toBe(-2);
    expect(pyRound(1.005, 2)).toBe(1);
  });
  it('formats like Python %', () => {
    expect(percentFormat('%.2f', 0.125)).toBe('0.12');
    expect(percentFormat('%x|%o|%c|%r|%%', tuple([255, 8, 'z', 'q']) as Value)).toBe("ff|10|z|'q'|%");
    expect(percentFormat('%8.3f|', -3.14159)).toBe('  -3.142|');
    expect(percentFormat('%g %g %g', tuple([0.0001, 1234567, 1e-10]))).toBe('0.0001 1.23457e+06 1e-10');
    expect(() => percentFormat('%s %s', tuple(['only one']))).toThrow('not enough arguments');
  });
});
