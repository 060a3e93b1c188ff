/**
 * Every problem of a template at once, without data: syntax errors, unclosed and mismatched
 * blocks, unknown filters, tests and tags, tags split across paragraphs, blocks that cross table
 * cells; then warnings for likely mistakes. Each finding says where it is (part, paragraph, table
 * cell, the text around it) and what to do. The report has the seed system's shape (`success`,
 * `errors[]` with `line_number`, `column`, `error_type`, …, `warnings[]`, `summary`) plus our
 * richer fields (`code`, `location`, `tag`).
 */
import { signatureFieldCalls } from '../inspect/signature-field-calls';
import { checkDocxTemplate, type TemplateLimits } from '../docx/package';
import { bindChartTags, misplacedChartTags, type MisplacedChartTag } from '../charts/chart-writer';
import type { TemplateProblem } from '../errors';
import { defaultEnvironment, type EngineEnvironment } from '../environment';
import type { Environment } from '../runtime/ops';
import {
  templateOutline,
  type TemplateLocation,
  type TemplateOutline,
  type TemplateTag,
} from '../inspect/template-outline';
import { IMAGE_LIKE_NAME, templateVariables } from '../inspect/template-variables';
import { compileProblems } from './compile-problems';
import { templateFormatOf } from '../template-format';
import { workbookOutline } from '../xlsx/workbook-outline';
import { deckOutline, type DeckMisplacedChartTag } from '../pptx/deck-outline';
import type { LintError, LintFinding, LintReport, LintWarning } from './lint-report';
import { closest, levenshtein, osaDistance } from './levenshtein';

// The report's shape is defined once, as schemas (lint-report.ts): the types and the OpenAPI.
export type {
  LintError,
  LintErrorType,
  LintFinding,
  LintReport,
  LintSummary,
  LintWarning,
  LintWarningType,
} from './lint-report';

export interface LintOptions {
  verbose?: boolean;
  /** Warnings make `success` false (the seed system's fail_on_warnings). */
  failOnWarnings?: boolean;
  /** The images a request gives, when known: image placeholders without one are warned about. */
  imageNames?: readonly string[];
  limits?: Partial<TemplateLimits>;
  /** The seed system's max_line_length: a paragraph with more characters is a `long_line` warning. */
  maxLineLength?: number;
  /** The environment the template will be rendered with (default: the engine's built-ins, as render's). */
  environment?: EngineEnvironment;
}

const BLOCK_TAGS =
  'if, elif, else, endif, for, endfor, set, endset, with, endwith, macro, endmacro, call, endcall, filter, endfilter, raw, endraw';

/** The tag's words without delimiters, prefix and whitespace marks: `for x in xs` for `{%- for x in xs %}`. */
function innerOf(tag: string): string {
  return tag
    .replace(/^\{[{%#][-+]?/, '')
    .replace(/[-+]?[}%#]\}$/, '')
    .replace(/^\s*(?:tr|tc|p|r)\s+/, '')
    .trim();
}

/** What to do about a syntax error the parser reported, as precisely as the message allows. */
function syntaxFix(m: string, tag: string): string {
  let match: RegExpExecArray | null;
  if (/did you mean/.test(m)) return m.slice(m.indexOf('did you mean')).replace(/^d/, 'D');
  if ((match = /^unknown tag '(tr|tc|p|r)'/.exec(m)))
    return `Did you mean '{%${match[1]} ${innerOf(tag).replace(/^(tr|tc|p|r)\s+/, '')} %}' (no space between '{%' and '${match[1]}')?`;
  if ((match = /^unexpected character '(.+)'/.exec(m)))
    return `Remove '${match[1]}', or put the text in quotes if it is meant to be printed`;
  if (/unterminated string/.test(m)) return 'Close the string with the quote it opens with';
  if (/the tag ends too early/.test(m))
    return 'Complete the expression: an operator, a dot or a bracket is missing what follows it';
  if ((match = /^expected '(.)'/.exec(m))) return `Add the missing '${match[1]}'`;
  if (/^unexpected '/.test(m))
    return "Join the words with an operator ('~' joins text) or a dot, or quote the text";
  if (/empty (tag|expression)/.test(m))
    return 'Write a name or an expression between the delimiters, or remove them';
  if (/expected 'in' after the loop variable/.test(m)) return 'Write the loop as {% for item in items %}';
  if (/is not supported/.test(m)) return m.slice(m.indexOf(':') + 1).trim();
  return 'Check the brackets, quotes and operators of the expression';
}

/** Seed error type, our code and a suggestion for a problem the compile passes reported. */
function classify(
  problem: TemplateProblem,
  env: Environment,
): Pick<LintError, 'error_type' | 'code' | 'suggestion'> {
  const m = problem.message;
  const tag = problem.tag ?? '';
  let match: RegExpExecArray | null;
  if (/not closed before the end of its paragraph/.test(m)) {
    // Unbalanced braces: the seed system's syntax_error. `{{ name }!` most likely lost a brace.
    const closer = tag.startsWith('{{') ? '}}' : tag.startsWith('{%') ? '%}' : '#}';
    const half = /^\{\{[^}]*\}(?!\})/.test(tag) || /^\{%[^%]*%(?!\})|^\{%[^}]*\}(?!\})/.test(tag);
    return {
      error_type: 'syntax_error',
      code: 'tag_not_closed',
      suggestion: /^[^"]*"[^"]*$|^[^']*'[^']*$/.test(tag)
        ? `Close the string in the tag with the quote it opens with, then the tag with '${closer}'`
        : half
          ? `Did you mean '${closer}'? The tag's closing delimiter has one character missing`
          : `Close the tag with '${closer}' (no '${closer}' follows it before the next tag)`,
    };
  }
  if (/split across table cells/.test(m))
    return {
      error_type: 'syntax_error',
      code: 'tag_split_across_cells',
      suggestion: 'Write the whole tag in one table cell',
    };
  if (/split across paragraphs around/.test(m))
    return {
      error_type: 'syntax_error',
      code: 'tag_split_unjoinable',
      suggestion: 'Write the whole tag in one paragraph, outside hyperlinks, fields and text boxes',
    };
  if ((match = /^'(\w+)' has no 'end(\w+)'/.exec(m)))
    return {
      error_type: 'unclosed_tag',
      code: 'unclosed_block',
      suggestion: `Add {% end${match[2]} %} where the ${match[1]} block should end`,
    };
  if ((match = /^'(end\w+|elif|else)' without an open '(\w+)'/.exec(m)))
    return {
      error_type: 'mismatched_tag',
      code: 'mismatched_block',
      suggestion: `Add the {% ${match[2]} … %} this tag belongs to, or remove the tag`,
    };
  if ((match = /^'(end\w+)' where the '(\w+)' opened by (.*) should end first/.exec(m)))
    return {
      error_type: 'mismatched_tag',
      code: 'mismatched_block',
      suggestion: `End the inner block first: {% end${match[2]} %} before this ${match[1]}, or write {% end${match[2]} %} here if that is what you meant`,
    };
  if (/after 'else'|second 'else'/.test(m))
    return {
      error_type: 'mismatched_tag',
      code: 'mismatched_block',
      suggestion: "Keep one 'else', after every 'elif' of its block",
    };
  if (/nested more than \d+ deep/.test(m))
    return {
      error_type: 'nested_error',
      code: 'nesting_too_deep',
      suggestion: "Join conditions with 'and' or 'elif', or move the inner part into a macro",
    };
  if (/different parts of the document structure/.test(m)) {
    const st = innerOf(tag);
    return {
      error_type: 'nested_error',
      code: 'block_crosses_table_cells',
      suggestion: `Did you mean '{%tr ${st} %}' (repeat or hide whole table rows), '{%tc ${st} %}' (cells) or '{%p ${st} %}' (paragraphs)? Each tag and its end must then stand in such an element; otherwise keep both in the same cell or paragraph`,
    };
  }
  if ((match = /^a \{%(tr|tc|p|r) …%\} tag must be inside/.exec(m)))
    return {
      error_type: 'nested_error',
      code: 'placement_outside_element',
      suggestion:
        match[1] === 'p'
          ? 'Move the tag into a paragraph of its own'
          : `Move the tag into ${match[1] === 'tr' ? 'a table row' : match[1] === 'tc' ? 'a table cell' : 'a run'}, or write '{%p ${innerOf(tag)} %}' for paragraphs`,
    };
  if ((match = /^a \{% (\w+) %\} tag must be inside a table cell/.exec(m)))
    return {
      error_type: 'nested_error',
      code: 'placement_outside_element',
      suggestion: `Move the {% ${match[1]} %} tag into the table cell it applies to`,
    };
  if (/the filter 'urlize'/.test(m))
    return {
      error_type: 'invalid_expression',
      code: 'unknown_filter',
      suggestion: 'Print the address as text ({{ url }}); Word makes it a link when the reader clicks it',
    };
  if ((match = /unknown filter '([^']+)'/.exec(m))) {
    const near = closest(match[1], Object.keys(env.filters));
    return {
      error_type: 'invalid_expression',
      code: 'unknown_filter',
      suggestion: near ? `Did you mean the filter '${near}'?` : 'See the README for the supported filters',
    };
  }
  if ((match = /unknown test '([^']+)'/.exec(m))) {
    const near = closest(match[1], Object.keys(env.tests));
    return {
      error_type: 'invalid_expression',
      code: 'unknown_test',
      suggestion: near ? `Did you mean the test '${near}'?` : 'See the README for the supported tests',
    };
  }
  if ((match = /^unknown tag '([^']+)'/.exec(m)) && !/^(tr|tc|p|r)$/.test(match[1])) {
    const near = closest(match[1], BLOCK_TAGS.split(', '));
    return {
      error_type: 'syntax_error',
      code: 'unknown_tag',
      suggestion: near ? `Did you mean '{% ${near} … %}'?` : `The supported tags are ${BLOCK_TAGS}`,
    };
  }
  if (/docxtpl tag .* not supported|not supported/.test(m))
    return { error_type: 'syntax_error', code: 'unknown_tag', suggestion: syntaxFix(m, tag) };
  return { error_type: 'syntax_error', code: 'syntax_error', suggestion: syntaxFix(m, tag) };
}

/** `if` for `{% if x %}`, `for` for `{%tr for … %}`, `expression` for `{{ … }}`. */
function tagName(source: string): string | null {
  if (!source) return null;
  if (source.startsWith('{{')) return 'expression';
  const word = /^\{[%#][-+]?\s*(?:(?:tr|tc|p|r)\s+)?(\p{ID_Continue}+)/u.exec(source);
  return word ? word[1] : null;
}

/** The paragraph a problem is in: the n-th paragraph of its part holding its tag text. */
function locate(
  outline: TemplateOutline,
  problem: TemplateProblem,
  seen: Map<string, number>,
): { location: TemplateLocation; column: number } | null {
  if (!problem.tag) return null;
  const key = `${problem.part}\u0000${problem.tag}`;
  const skip = seen.get(key) ?? 0;
  // A tag left open, or the first half of one split across cells: it runs to the paragraph's end.
  const split = /not closed before the end|is split across/.test(problem.message);
  let n = 0;
  for (const para of outline.paragraphs) {
    if (para.part !== problem.part) continue;
    let from = para.text.indexOf(problem.tag);
    while (from >= 0) {
      // A tag left open runs to the end of its paragraph.
      const fits = !split || from + problem.tag.length === para.text.length;
      if (fits && n++ === skip) {
        seen.set(key, skip + 1);
        const { text: _text, ...location } = para;
        return { location, column: from + 1 };
      }
      from = para.text.indexOf(problem.tag, from + 1);
    }
  }
  return null;
}

function finding(base: {
  message: string;
  code: string;
  suggestion: string | null;
  tag: TemplateTag;
}): LintFinding {
  return {
    line_number: base.tag.location.line,
    column: base.tag.column,
    message: base.message,
    context: base.tag.paragraphText,
    tag_name: tagName(base.tag.source),
    suggestion: base.suggestion,
    code: base.code,
    tag: base.tag.source,
    location: base.tag.location,
  };
}

/**
 * signature_field calls that fail every render: a bad argument, or a literal name used twice
 * (each place is signed by name, so a document holds each once).
 */
function signatureFieldErrors(outline: TemplateOutline): LintError[] {
  const errors: LintError[] = [];
  const named = new Set<string>();
  for (const tag of outline.tags)
    for (const call of signatureFieldCalls(tag)) {
      const problem =
        call.problem ??
        (call.name !== null && named.has(call.name)
          ? `the signature field '${call.name}' is placed twice; a document holds each once`
          : undefined);
      if (call.name !== null) named.add(call.name);
      if (!problem) continue;
      errors.push({
        error_type: 'invalid_expression',
        ...finding({
          message: `signature_field: ${problem}`,
          code: 'bad_signature_field',
          suggestion: "Write {{ signature_field('name', width_mm=60, height_mm=25) }} with a name used once",
          tag,
        }),
      });
    }
  return errors;
}

/** A key with a dash written as a name: `{{ e-mail }}` subtracts `mail` from `e`. */
function dashedNames(tag: TemplateTag): string[] {
  const outsideStrings = tag.source.replace(/"[^"]*"|'[^']*'|[“”‘’][^“”‘’]*[“”‘’]/g, '""');
  return [
    ...outsideStrings.matchAll(
      /(?<![\p{ID_Continue}.[])([\p{ID_Start}_]\p{ID_Continue}*(?:\.\p{ID_Continue}+)*-[\p{ID_Start}_][\p{ID_Continue}-]*)/gu,
    ),
  ].map((m) => m[1]);
}

/**
 * Names that look alike on purpose: they differ only in digits (`sum1`/`sum2`,
 * `employee1`/`employee3`), in more than one segment, or in one short field where most letters
 * differ (`row.q`/`row.t`, `vm.nom`/`vm.ram`). A typo changes a letter or two of a longer name
 * (`customer.nmae`), a swap of neighbours counting once.
 */
function deliberatelyAlike(a: string[], b: string[]): boolean {
  const differing = a.map((s, i) => i).filter((i) => a[i] !== b[i]);
  if (differing.length !== 1) return true;
  const [x, y] = [a[differing[0]], b[differing[0]]];
  if (x.replace(/\d/g, '') === y.replace(/\d/g, '')) return true;
  return osaDistance(x, y) * 4 > Math.min(x.length, y.length);
}

function warningsOf(outline: TemplateOutline, options: LintOptions): LintWarning[] {
  const warnings: LintWarning[] = [];
  const found = templateVariables({
    paragraphs: outline.paragraphs,
    tags: outline.tags.filter((t) => !t.syntaxError),
  });
  const tagAt = (loc: TemplateLocation, hint: string) => {
    const here = outline.tags.filter(
      (t) => t.location.part === loc.part && t.location.paragraph === loc.paragraph,
    );
    return here.find((t) => t.source.includes(hint)) ?? here[0];
  };

  // A variable used once whose spelling is within two edits of another: most likely a typo.
  const data = found.variables.filter((v) => !v.usages.every((u) => u === 'computed'));
  for (const v of data) {
    if (v.count !== 1 || v.path.length < 4) continue;
    const twin = data
      .filter((o) => o !== v && o.segments.length === v.segments.length && o.path.length >= 4)
      .filter((o) => !deliberatelyAlike(v.segments, o.segments))
      .map((o) => ({ o, d: levenshtein(v.path, o.path) }))
      .filter(({ o, d }) => d > 0 && d <= 2 && d * 4 <= v.path.length && o.count >= v.count)
      .sort((a, b) => a.d - b.d || b.o.count - a.o.count)[0];
    if (!twin) continue;
    warnings.push({
      warning_type: 'suspicious_syntax',
      ...finding({
        message: `'${v.path}' is used once and is spelled almost like '${twin.o.path}' (used ${twin.o.count} time${twin.o.count > 1 ? 's' : ''})`,
        code: 'similar_variable_name',
        suggestion: `If this is a typo, write '${twin.o.path}'`,
        tag: tagAt(v.locations[0], v.segments[v.segments.length - 1]),
      }),
    });
  }

  // An image placeholder the request gives no image for prints its value as text (or nothing).
  if (options.imageNames) {
    for (const img of found.images) {
      if (img.kind !== 'placeholder' || options.imageNames.includes(img.name)) continue;
      warnings.push({
        warning_type: 'unused_variable',
        ...finding({
          message: `'${img.name}' looks like an image placeholder, but the request has no image named '${img.name}'`,
          code: 'image_without_image',
          suggestion: `Add images.${img.name} (base64 PNG) to the request, or rename the variable if it is text`,
          tag: tagAt(img.location, img.name),
        }),
      });
    }
  } else {
    // No request: list image-like names printed as `{{ name }}` inside text, which never become images.
    for (const t of outline.tags) {
      if (t.kind !== 'expr' || t.alone || t.expr?.type !== 'Name' || !IMAGE_LIKE_NAME.test(t.expr.name))
        continue;
      warnings.push({
        warning_type: 'suspicious_syntax',
        ...finding({
          message: `'${t.expr.name}' looks like an image, but an image placeholder must be alone in its paragraph`,
          code: 'image_placeholder_not_alone',
          suggestion: `Put {{ ${t.expr.name} }} in a paragraph of its own`,
          tag: t,
        }),
      });
    }
  }

  // Delimiters a space or a stray character broke (`{ {`, `% }`) or closers with no opener: such
  // text is printed as it is, which the author never means.
  for (const para of outline.paragraphs) {
    let rest = para.text;
    for (const t of outline.tags)
      if (t.location.part === para.part && t.location.paragraph === para.paragraph)
        rest = rest.replace(t.source, ' ');
    const broken = /\{\s+[{%#]|[}%#]\s+\}|\}\}|%\}/.exec(rest);
    if (!broken || /\{\{|\{%/.test(rest)) continue; // an unclosed tag is reported as an error already
    const column = para.text.indexOf(broken[0]) + 1;
    const { text: _text, ...location } = para;
    warnings.push({
      warning_type: 'suspicious_syntax',
      line_number: para.line,
      column: column > 0 ? column : null,
      message: `'${broken[0]}' looks like a broken tag delimiter; it is printed as text`,
      context: para.text,
      tag_name: null,
      suggestion: "Write the delimiters without spaces inside: '{{', '}}', '{%', '%}'",
      code: 'broken_tag_delimiter',
      tag: null,
      location,
    });
  }

  if (options.maxLineLength) {
    const max = options.maxLineLength;
    for (const para of outline.paragraphs) {
      const length = [...para.text].length;
      if (length <= max) continue;
      const { text: _text, ...location } = para;
      warnings.push({
        warning_type: 'long_line',
        line_number: para.line,
        column: max + 1,
        message: `Line ${para.line} is ${length} characters long (more than ${max})`,
        context: para.text.length > 80 ? `${para.text.slice(0, 77)}…` : para.text,
        tag_name: null,
        suggestion: `Break the paragraph, or move long expressions into {% set %} tags, to stay within ${max} characters`,
        code: 'long_line',
        tag: null,
        location,
      });
    }
  }

  for (const t of outline.tags) {
    if (t.kind === 'comment') continue;
    for (const name of dashedNames(t)) {
      const [base, ...rest] = name.split('.');
      const last = rest.length ? rest[rest.length - 1] : base;
      const owner = rest.length ? [base, ...rest.slice(0, -1)].join('.') : null;
      warnings.push({
        warning_type: 'suspicious_syntax',
        ...finding({
          message: `'${name}' reads as a subtraction; JSON keys with '-' are not names`,
          code: 'dash_in_name',
          suggestion: owner
            ? `Write ${owner}['${last}'] for the key '${last}'`
            : `Give the value a key without '-' or reach it through its parent object with ['${last}']`,
          tag: t,
        }),
      });
    }
  }

  // Renders (docxtpl joins such a tag too), but the paragraphs after the first are gone.
  for (const t of outline.tags) {
    if (!t.splitParagraphs) continue;
    warnings.push({
      warning_type: 'suspicious_syntax',
      ...finding({
        message: `'${t.source}' is split across ${t.splitParagraphs} paragraphs; as docxtpl, the paragraphs are joined into the first (its formatting kept, the others' lost)`,
        code: 'tag_split_across_paragraphs',
        suggestion: 'Retype the tag on one line in Word (a paragraph break inside a tag is easy to miss)',
        tag: t,
      }),
    });
  }
  return warnings;
}

/**
 * The lint report of a Word template or, told by its content types, of a workbook (each cell one
 * line, located by sheet, cell and row) or a deck (each paragraph of a slide or its notes one line,
 * located by slide, shape and table cell); the same diagnostics where they apply.
 */
export function lintDocxTemplate(template: Buffer, options: LintOptions = {}): LintReport {
  const started = performance.now();
  const environment = options.environment ?? defaultEnvironment();
  let outline: TemplateOutline;
  let problems: TemplateProblem[];
  let misplacedCharts: (MisplacedChartTag & Partial<DeckMisplacedChartTag>)[] = [];
  const format = templateFormatOf(template);
  if (format === 'xlsx') {
    ({ outline, problems } = workbookOutline(template, environment, options.limits));
  } else if (format === 'pptx') {
    ({ outline, problems, misplacedCharts } = deckOutline(template, environment, options.limits));
  } else {
    // One package for both: the outline reads the parts as they are, then the compile passes mark
    // their tags in place.
    const zip = checkDocxTemplate(template, options.limits);
    // Chart tags on drawings that are not charts fill nothing; bound ones are linted where the fill moves them.
    misplacedCharts = misplacedChartTags(zip);
    bindChartTags(zip);
    outline = templateOutline(zip);
    ({ problems } = compileProblems(zip, environment));
  }
  const seen = new Map<string, number>();
  const errors: LintError[] = problems.map((problem) => {
    const where = locate(outline, problem, seen);
    return {
      line_number: where?.location.line ?? null,
      column: where?.column ?? null,
      message: problem.message,
      context: problem.context || null,
      tag_name: tagName(problem.tag),
      tag: problem.tag || null,
      location:
        where?.location ?? (problem.part ? { part: problem.part, paragraph: 0, line: 0, table: null } : null),
      ...classify(problem, environment),
    };
  });
  // An empty document: the seed system's document_error. (It renders, to an empty document: the
  // one lint error that does not stop rendering, docs/dialect.md.)
  // A chart tag on a shape that is no chart is a tag too: that error says what is wrong.
  if (
    !outline.paragraphs.some((p) => p.text.trim() !== '') &&
    !outline.tags.length &&
    !misplacedCharts.length
  )
    errors.push({
      error_type: 'document_error',
      line_number: null,
      column: null,
      message: 'The document has no text: there is nothing to fill',
      context: null,
      tag_name: null,
      suggestion: 'Check that this is the template you meant to send; write its text and tags in Word',
      code: 'empty_document',
      tag: null,
      location: null,
    });
  errors.push(...signatureFieldErrors(outline));
  for (const m of misplacedCharts) {
    // A deck's: located by slide and shape; in a shape's text it is a line of the template.
    const inText = m.column !== undefined && m.column !== null;
    const deck = m.location?.slide !== undefined;
    errors.push({
      error_type: 'document_error',
      line_number: inText ? m.location!.line : null,
      column: m.column ?? null,
      message: `${m.tag} is in the ${inText ? 'text' : 'alternative text'} of '${m.drawing}', which is not a chart: nothing would be filled`,
      context: null,
      tag_name: 'expression',
      suggestion: deck
        ? "Insert a chart on the slide (Insert > Chart in PowerPoint or Impress) and put the tag in its title or alternative text; a slide's text cannot make a new chart"
        : "Insert a chart (Insert > Chart in Word or LibreOffice) and put the tag in its title or alternative text, or write {{ chart(data, type='line') }} in a paragraph for a new chart",
      code: 'chart_tag_not_on_chart',
      tag: m.tag,
      location: m.location ?? { part: m.part, paragraph: 0, line: 0, table: null },
    });
  }
  errors.sort((a, b) => (a.line_number ?? 0) - (b.line_number ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const warnings = warningsOf(outline, options);
  const text = outline.paragraphs.map((p) => p.text).join('\n');
  const report: LintReport = {
    success: errors.length === 0 && !(options.failOnWarnings && warnings.length > 0),
    errors,
    warnings,
    summary: {
      total_errors: errors.length,
      total_warnings: warnings.length,
      template_size: text.length,
      lines_count: outline.paragraphs.length,
      jinja_tags_count:
        outline.tags.length +
        problems.filter((p) => /not closed before|is split across/.test(p.message)).length,
      completeness_score: Math.max(0, 100 - 25 * errors.length - 2 * warnings.length),
      processing_time_ms: Math.round((performance.now() - started) * 10) / 10,
      parts: [...new Set(outline.paragraphs.map((p) => p.part))],
    },
    template_preview: text.slice(0, 500),
  };
  if (options.verbose) {
    report.template_content = text;
    report.tags = outline.tags.map((t) => ({
      tag: t.source,
      line_number: t.location.line,
      column: t.column,
      location: t.location,
    }));
  }
  return report;
}
