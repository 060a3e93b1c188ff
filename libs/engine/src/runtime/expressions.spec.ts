import { spawnSync } from 'node:child_process';
import { evaluate, Frame } from './evaluator';
import { jinjaEnvironment } from './environment';
import { DEFAULT_EVAL_LIMITS, JinjaRuntimeError, RenderState } from './ops';
import { JinjaSyntaxError, parseExpression, parseStatement } from '../syntax/parser';
import { percentFormat, pyRound } from './pyformat';
import { str, tuple, type Dict, type Value } from './values';

const DATA = JSON.parse(`{
  "n": 10, "f": 2.5, "s": "hello world", "empty": "", "nothing": null, "yes": true,
  "xs": [3, 1, 2], "words": ["b", "A", "c"],
  "items": [{"name": "Pen", "qty": 2, "price": 1.5}, {"name": "Ink", "qty": 1, "price": 4}],
  "d": {"a b": 1, "k": "v"},
  "order": {"items": ["from data"], "total": 7},
  "__proto__": {"polluted": true}
}`) as Dict;

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

const OPERATORS: [string, string][] = [
  ['"a" ~ 1 ~ none', 'a1None'],
  ['\'x\' "y"', 'xy'],
  ['[1, "a", none, true]', "[1, 'a', None, True]"],
  ['{"k": 1}', "{'k': 1}"],
  ['n + 1', '11'],
  ['n - f', '7.5'],
  ['n * f', '25.0'],
  ['n / 4', '2.5'],
  ['n / 5', '2.0'],
  ['n // 3', '3'],
  ['-7 // 2', '-4'],
  ['n % 3', '1'],
  ['-7 % 3', '2'],
  ['2 ** 10', '1024'],
  ['2 ** -1', '0.5'],
  ['0.1 + 0.2', '0.30000000000000004'],
  ['1e16', '1e+16'],
  ['1e-5', '1e-05'],
  ['123456789012.5', '123456789012.5'],
  ['n == 10.0', 'True'],
  ['n != 10', 'False'],
  ['1 < 2 < 3', 'True'],
  ['3 > 2 > 2', 'False'],
  ['"ab" < "b"', 'True'],
  ['[1, 2] < [1, 3]', 'True'],
  ['"lo w" in s', 'True'],
  ['4 not in xs', 'True'],
  ['"k" in d', 'True'],
  ['yes and n', '10'],
  ['empty or "fallback"', 'fallback'],
  ['not empty', 'True'],
  ['"big" if n > 5 else "small"', 'big'],
  ['"x" if n > 50', ''],
  ['-f', '-2.5'],
  ["'ab' * 3", 'ababab'],
  ['xs + [4]', '[3, 1, 2, 4]'],
];
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

const FILTER_CASES: [string, string][] = [
  ['missing|default("d")', 'd'],
  ['empty|default("d")', ''],
  ['empty|default("d", true)', 'd'],
  ['missing|d("x")', 'x'],
  ['s|upper', 'HELLO WORLD'],
  ['"ÀB"|lower', 'àb'],
  ['"o\'neil-smith x"|title', "O'neil-Smith X"],
  ['"hELLO"|capitalize', 'Hello'],
  ['"  pad  "|trim', 'pad'],
  ['"xxaxx"|trim("x")', 'a'],
  ['xs|length', '3'],
  ['s|count', '11'],
  ['"é😀"|length', '2'],
  ['2.675|round(2)', '2.67'],
  ['2.5|round', '2.0'],
  ['3.5|round', '4.0'],
  ['3|round', '3'],
  ['1234.5|round(-2)', '1200.0'],
  ['2.1|round(0, "ceil")', '3.0'],
  ['2.9|round(0, "floor")', '2.0'],
  ['"42"|int', '42'],
  ['"4.7"|int', '4'],
  ['"x"|int(-1)', '-1'],
  ['4.7|int', '4'],
  ['"ff"|int(base=16)', '255'],
  ['"2.50"|float', '2.5'],
  ['3|float', '3.0'],
  ['"x"|float', '0.0'],
  ['n|string ~ "!"', '10!'],
  ['xs|join("-")', '3-1-2'],
  ['items|join(", ", attribute="name")', 'Pen, Ink'],
  ['s|replace("l", "L")', 'heLLo worLd'],
  ['s|replace("l", "L", 2)', 'heLLo world'],
  ['xs|first', '3'],
  ['xs|last', '2'],
  ['[]|first', ''],
  ['xs|sum', '6'],
  ['items|sum(attribute="price")', '5.5'],
  ['xs|sort', '[1, 2, 3]'],
  ['xs|sort(reverse=true)', '[3, 2, 1]'],
  ['words|sort', "['A', 'b', 'c']"],
  ['words|sort(case_sensitive=true)', "['A', 'b', 'c']"],
  ['items|sort(attribute="price")|map(attribute="name")|list', "['Pen', 'Ink']"],
  ['-3|abs', '3'],
  ['-2.5|abs', '2.5'],
  ['"%.2f"|format(3.14159)', '3.14'],
  ['"%s-%05d|%-4s|%+.1e"|format("a", 42, "b", 1234.5)', 'a-00042|b   |+1.2e+03'],
  ['"%(a)s/%(b)s"|format(a=1, b=2)', '1/2'],
  ['"%s and %s" % (1, "x")', '1 and x'],
  ['"%s" % xs', '[3, 1, 2]'],
  ['xs|reverse|list', '[2, 1, 3]'],
  ['xs|min', '1'],
  ['(items|max(attribute="qty")).name', 'Pen'],
  ['items[0]|attr("name")', ''],
  ['[1, 1, 2]|unique|list', '[1, 2]'],
  ['items|selectattr("qty", "gt", 1)|map(attribute="name")|list', "['Pen']"],
  ['xs|select("odd")|list', '[3, 1]'],
  ['xs|reject("odd")|list', '[2]'],
  ['d|dictsort', "[('a b', 1), ('k', 'v')]"],
  ['"a long sentence here"|truncate(9, leeway=0)', 'a...'],
  ['"a long sentence here"|truncate(12, leeway=0)', 'a long...'],
  ['"one two three"|wordcount', '3'],
  ['[1,2,3,4,5]|batch(2)|list', '[[1, 2], [3, 4], [5]]'],
  ['"ab"|center(6)', '  ab  '],
  ['d|tojson', '{"a b": 1, "k": "v"}'],
  ['{"b": "é<", "a": [1.5, none]}|tojson', '{"a": [1.5, null], "b": "\\u00e9\\u003c"}'],
  ['s|e', 'hello world'],
  ['items|groupby("qty")|map(attribute="grouper")|list', '[1, 2]'],
  ['(items|groupby("qty"))[0].list|map(attribute="name")|list', "['Ink']"],
  ['words|groupby("0")|list', "[('A', ['A']), ('b', ['b']), ('c', ['c'])]"],
  ['[{"k": "a"}, {"k": "A"}, {"k": "b"}]|groupby("k")|map(attribute="grouper")|list', "['a', 'b']"],
  ['[{"k": "a"}, {"k": "A"}]|groupby("k", case_sensitive=true)|map(attribute="grouper")|list', "['A', 'a']"],
  ['[1,2,3,4,5]|slice(2)|list', '[[1, 2, 3], [4, 5]]'],
  ['[1,2,3,4,5]|slice(3, "x")|list', "[[1, 2], [3, 4], [5, 'x']]"],
  ['"The quick brown fox jumps"|wordwrap(10)', 'The quick\nbrown fox\njumps'],
  ['"abcdefghijkl mn"|wordwrap(5)', 'abcde\nfghij\nkl mn'],
  ['"abcdefghijkl"|wordwrap(5, false)', 'abcdefghijkl'],
  ['"a b c"|wordwrap(1, wrapstring="|")', 'a|b|c'],
  ['"well-known thing"|wordwrap(6)', 'well-\nknown\nthing'],
  ['"a\nb\n\nc"|indent(2)', 'a\n  b\n\n  c'],
  ['"a\nb"|indent(2, true)', '  a\n  b'],
  ['"a\n\nb"|indent("> ", blank=true)', 'a\n> \n> b'],
  ['"<p>Hi <b>there</b></p>  <!-- c -->x &amp; y"|striptags', 'Hi there x & y'],
  ['"a b/c?d=é"|urlencode', 'a%20b/c%3Fd%3D%C3%A9'],
  ['{"q": "a b", "n": 1}|urlencode', 'q=a+b&n=1'],
  ['[("a", 1), ("b", "x/y")]|urlencode', 'a=1&b=x%2Fy'],
  ['1|filesizeformat', '1 Byte'],
  ['999|filesizeformat', '999 Bytes'],
  ['12345|filesizeformat', '12.3 kB'],
  ['1048576|filesizeformat(true)', '1.0 MiB'],
  ['3000000000|filesizeformat', '3.0 GB'],
  ['{"b": 1, "a": [1, "x"]}|pprint', "{'a': [1, 'x'], 'b': 1}"],
  ['{"id": "x", "n": none, "k": 2}|xmlattr', ' id="x" k="2"'],
  ['{"id": "x"}|xmlattr(false)', 'id="x"'],
  ['"plain"|forceescape', 'plain'],
  ['xs|map("string")|join("|")', '3|1|2'],
  ['[xs|random] in [[3], [1], [2]]', 'True'],
];
describe('filters', () => {
  it.each(FILTER_CASES)('%s → %s', (src, expected) => {
    expect(out(src)).toBe(expected);
  });
});

const TEST_CASES: [string, string][] = [
  ['n is defined', 'True'],
  ['missing is defined', 'False'],
  ['missing is undefined', 'True'],
  ['nothing is none', 'True'],
  ['nothing is not none', 'False'],
  ['n is divisibleby 5', 'True'],
  ['n is divisibleby(3)', 'False'],
  ['n is even', 'True'],
  ['n is odd', 'False'],
  ['s is string', 'True'],
  ['xs is iterable', 'True'],
  ['d is mapping', 'True'],
  ['f is number', 'True'],
  ['n is sameas 10', 'True'],
  ['2 is in xs', 'True'],
  ['n is gt 3', 'True'],
  ['3 is in [1, 2, 3]', 'True'],
  ['"a" is in {"a": 1}', 'True'],
  ['"upper" is filter', 'True'],
  ['"nope" is filter', 'False'],
  ['"odd" is test', 'True'],
  ['n is integer', 'True'],
  ['f is float', 'True'],
  ['yes is boolean', 'True'],
  ['yes is true', 'True'],
  ['empty is false', 'False'],
  ['s is lower', 'True'],
  ['"AB" is upper', 'True'],
  ['xs is sequence', 'True'],
  ['range is callable', 'True'],
  ['n is ne 3', 'True'],
  ['n is le 10', 'True'],
  ['n is lt 10', 'False'],
  ['n is ge 11', 'False'],
  ['n is eq 10', 'True'],
  ['n is equalto 10', 'True'],
  ['n is greaterthan 9', 'True'],
  ['n is lessthan 9', 'False'],
  ['s is escaped', 'False'],
  ['nothing is none', 'True'],
];

const METHOD_CASES: [string, string][] = [
  ['"a,b,c".rsplit(",", 1)', "['a,b', 'c']"],
  ['"a,b,c".split(",", 1)', "['a', 'b,c']"],
  ['"  a  b  c ".split(None, 1)', "['a', 'b  c ']"],
  ['"  a  b  c ".rsplit(None, 1)', "['  a  b', 'c']"],
  ['"a b c".rsplit()', "['a', 'b', 'c']"],
  ['"a b c ".split(None, 2)', "['a', 'b', 'c ']"],
  ['" a b c".rsplit(None, 2)', "[' a', 'b', 'c']"],
  ['"a b ".split(None, 5)', "['a', 'b']"],
  ['s.count("o")', '2'],
  ['s.count("")', '12'],
  ['s.find("o")', '4'],
  ['s.find("o", 5)', '7'],
  ['s.rfind("o")', '7'],
  ['s.find("z")', '-1'],
  ['s.index("w")', '6'],
  ['s.rindex("l")', '9'],
  ['"k=v=w".partition("=")', "('k', '=', 'v=w')"],
  ['"k=v=w".rpartition("=")', "('k=v', '=', 'w')"],
  ['"abc".partition("z")', "('abc', '', '')"],
  ['"42".zfill(5)', '00042'],
  ['"-42".zfill(5)', '-0042'],
  ['"ab".ljust(5, ".")', 'ab...'],
  ['"ab".rjust(5)', '   ab'],
  ['"ab".center(7, "*")', '***ab**'],
  ['"abc".center(6)', ' abc  '],
  ['"a\nb\r\nc".splitlines()', "['a', 'b', 'c']"],
  ['"a\nb".splitlines(true)', "['a\\n', 'b']"],
  ['s.title()', 'Hello World'],
  ['"hELLo".swapcase()', 'HellO'],
  ['"123".isdigit()', 'True'],
  ['"12a".isdigit()', 'False'],
  ['"abc".isalpha()', 'True'],
  ['"ab1".isalnum()', 'True'],
  ['"  ".isspace()', 'True'],
  ['"abc".islower()', 'True'],
  ['"ABC".isupper()', 'True'],
  ['"Hello World".istitle()', 'True'],
  ['"Straße".casefold()', 'strasse'],
  ['"report.docx".removesuffix(".docx")', 'report'],
  ['"Mr. X".removeprefix("Mr. ")', 'X'],
  ['s.startswith(("x", "he"))', 'True'],
  ['s.endswith("rld")', 'True'],
  ['"a\tb".expandtabs(4)', 'a   b'],
  ['"aaa".replace("a", "b", 2)', 'bba'],
  ['"x".join(["1", "2"])', '1x2'],
  ['"Ab".lower() ~ "Ab".upper()', 'abAB'],
  ['"  x ".lstrip() ~ "|"', 'x |'],
  ['"hello".capitalize()', 'Hello'],
];
describe('str methods', () => {
  it.each(METHOD_CASES)('%s → %s', (src, expected) => {
    expect(out(src)).toBe(expected);
  });
});

const GLOBAL_CASES: [string, string][] = [
  ['dict(a=1, b="x")', "{'a': 1, 'b': 'x'}"],
  ['namespace(a=1).a', '1'],
  ['cycler("a", "b").next()', 'a'],
  ['joiner(", ")()', ''],
];
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

/*
 * The same tables through Python's Jinja2 (installed with docxtpl): the expected strings above
 * are Jinja's own output, not our belief about it. Rows where we deliberately differ are listed.
 */
const DELIBERATE_DIFFERENCES = new Set([
  'order.items', // a data key wins over the dict method: order.items is the data's list
  'missing.deeper[0]', // chained access on undefined renders empty instead of raising
  '"x" if n > 50', // Jinja also prints nothing; listed because its Undefined repr differs in 3.0
]);
describe('agrees with Jinja2', () => {
  it('gives Jinja2 output for every operator, access, filter and test row', () => {
    const rows = [...OPERATORS, ...FILTER_CASES, ...TEST_CASES, ...METHOD_CASES, ...GLOBAL_CASES].filter(
      ([src]) => !DELIBERATE_DIFFERENCES.has(src),
    );
    const script = [
      'import json, sys, jinja2',
      'req = json.load(sys.stdin)',
      'env = jinja2.Environment()',
      'out = []',
      'for src in req["rows"]:',
      '    try: out.append(env.from_string("{{ " + src + " }}").render(**req["data"]))',
      '    except Exception as e: out.append("ERROR " + type(e).__name__ + ": " + str(e))',
      'print(json.dumps(out))',
    ].join('\n');
    const { data: _ignored, ...plain } = { data: null, ...DATA };
    const res = spawnSync('/usr/bin/python3', ['-c', script], {
      input: JSON.stringify({ rows: rows.map(([src]) => src), data: plain }),
      encoding: 'utf8',
    });
    expect(res.stderr).toBe('');
    const jinja = JSON.parse(res.stdout) as string[];
    const mismatches = rows
      .map(([src, ours], i) => ({ src, ours, jinja: jinja[i] }))
      .filter((r) => r.ours !== r.jinja);
    expect(mismatches).toEqual([]);
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
