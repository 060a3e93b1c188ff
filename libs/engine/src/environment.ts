/**
 * What a render may use beyond the template language itself, built by its caller and handed to
 * renderDocx, lintDocxTemplate and compileProblems: filters and tests (the runtime looks them up
 * in the render's environment, never in a process-wide table), content writers (values the fill
 * writes as XML of their own) and package passes (steps over the filled package before it is
 * zipped). defaultEnvironment() holds the engine's built-ins and is built once, on first use.
 */
import type PizZip from 'pizzip';
import type { RenderRequest } from '@app/contracts';
import type { ContentWriter } from './docx/content-writer';
import { CHART_FILTERS } from './charts/chart-writer';
import { FORMAT_FILTERS } from './format/filters';
import { SIGNATURE_FILTERS } from './format/signature-fields';
import { RICH_FILTERS } from './rich/rich-value';
import { jinjaEnvironment } from './runtime/environment';
import type { Environment, FilterFn, RenderState, TestFn } from './runtime/ops';

export type { FilterFn, TestFn };

/** What a content writer gets when a render starts. */
export interface WriterContext {
  readonly zip: PizZip;
  readonly state: RenderState;
  readonly request: RenderRequest;
}

/** A content writer of the caller's: asked before rich content, finalized after the fill. */
export interface PluggedWriter extends ContentWriter {
  finalize?(): void;
}

export type ContentWriterFactory = (context: WriterContext) => PluggedWriter;

/** A step over the filled package (its parts as pizzip holds them), before it is zipped. */
export type PackagePass = (zip: PizZip) => void;

export interface EngineEnvironment extends Environment {
  readonly writers: readonly ContentWriterFactory[];
  readonly packagePasses: readonly PackagePass[];
}

export interface EnvironmentOptions {
  /** Filters beyond the built-ins; a built-in's name is refused. */
  filters?: Readonly<Record<string, FilterFn>>;
  tests?: Readonly<Record<string, TestFn>>;
  writers?: readonly ContentWriterFactory[];
  packagePasses?: readonly PackagePass[];
}

/**
 * The engine's built-ins — Jinja's filters and tests, rich content's (`html`, `markdown`, …),
 * the formatting filters (Babel's names, num2words, barcodes) `chart` and signature_field — with the caller's added.
 */
export function createEnvironment(options: EnvironmentOptions = {}): EngineEnvironment {
  const runtime = jinjaEnvironment({
    filters: [
      RICH_FILTERS,
      FORMAT_FILTERS,
      CHART_FILTERS,
      SIGNATURE_FILTERS,
      ...(options.filters ? [options.filters] : []),
    ],
    tests: options.tests ? [options.tests] : [],
  });
  return Object.freeze({
    ...runtime,
    writers: Object.freeze([...(options.writers ?? [])]),
    packagePasses: Object.freeze([...(options.packagePasses ?? [])]),
  });
}

let builtIns: EngineEnvironment | undefined;

/** The built-ins alone: built once and shared by every render, lint and inspect that gets no other. */
export function defaultEnvironment(): EngineEnvironment {
  return (builtIns ??= createEnvironment());
}
