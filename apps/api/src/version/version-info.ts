/**
 * What GET /version tells: this service's version, the API forms and features it accepts (so a
 * caller of any seed system version can check it is served), the engine and the converter.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { type ConverterInfo, OneOf, UNDEFINED_BEHAVIORS, type UndefinedMode } from '@app/contracts';

/** The seed system versions whose forms this service answers. */
const COMPATIBLE_WITH = ['1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7', '1.8', '1.8.1'];

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** The project's package.json, found upwards from here (source, tests and dist/ alike). */
function projectPackage(): Record<string, unknown> {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = readJson(file);
      if (pkg.name === 'docx-pdf-service') return pkg;
    }
  }
  return { name: 'docx-pdf-service', version: 'unknown' };
}

function dependencyVersion(name: string): string {
  try {
    return String(readJson(require.resolve(`${name}/package.json`)).version);
  } catch {
    return 'unknown';
  }
}

const strings = () => Type.Array(Type.String());

/** What GET /version answers, defined once: VersionInfo is its type, the OpenAPI schema is it. */
export const VersionInfoSchema = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    api_version: Type.String(),
    compatible_with: strings(),
    modes: Type.Record(Type.String(), Type.String()),
    undefined_behaviors: strings(),
    /** The seed system's object, to the letter. */
    features: Type.Object(
      {
        undefined_behavior_options: strings(),
        default_undefined_behavior: Type.String({ example: 'silent' }),
        missing_fields_handling: Type.Boolean({ example: true }),
      },
      { description: "The seed system's features object" },
    ),
    /** Ours, beside it: what this service does beyond the seed system's forms. */
    capabilities: Type.Array(Type.String(), {
      description: 'What this service does beyond the seed system (lint, inspect, docx_output, …)',
    }),
    engine: Type.Object({
      name: Type.String(),
      dialect: Type.String(),
      docxtemplater: Type.String(),
      pizzip: Type.String(),
    }),
    converter: Type.Object({
      kind: Type.String({ example: 'libreoffice' }),
      version: Type.String({ example: 'LibreOffice 7.4.7.2 40(Build:2)' }),
      reported_by: OneOf(['worker', 'none']),
    }),
  },
  { $id: 'VersionInfo' },
);
export type VersionInfo = Static<typeof VersionInfoSchema>;
type Never<T extends never> = T;
/** A field the workers' ConverterInfo (@app/contracts) gains must be in the schema too: tsc says so. */
export type ConverterInfoDocumented = Never<Exclude<keyof ConverterInfo, keyof VersionInfo['converter']>>;

const STATIC = (() => {
  const pkg = projectPackage();
  return {
    name: String(pkg.name),
    version: String(pkg.version),
    docxtemplater: dependencyVersion('docxtemplater'),
    pizzip: dependencyVersion('pizzip'),
  };
})();

/** Our undefined modes by the seed system's names (`empty` is its `silent`). */
const SEED_NAME: Record<UndefinedMode, string> = {
  empty: 'silent',
  property_missing: 'property_missing',
  debug: 'debug',
  strict: 'strict',
};

export function versionInfo(
  converter: ConverterInfo | null,
  playground: boolean,
  defaultUndefined: UndefinedMode = 'empty',
): VersionInfo {
  return {
    name: STATIC.name,
    version: STATIC.version,
    api_version: '1',
    compatible_with: COMPATIBLE_WITH,
    modes: {
      legacy: 'file + data (v1.1)',
      enhanced:
        'file + request_data {template_data, images, options, undefined_behavior, linter_options} (v1.2–1.5)',
      'v1.6': 'file + data + images, undefined_behavior, linter_options as form fields (v1.6+)',
    },
    undefined_behaviors: [...UNDEFINED_BEHAVIORS],
    features: {
      undefined_behavior_options: [...UNDEFINED_BEHAVIORS],
      default_undefined_behavior: SEED_NAME[defaultUndefined] ?? 'silent',
      // The seed's boolean, as its own clients check it; that the handling is configurable per
      // request (undefined_behavior) is said in capabilities.
      missing_fields_handling: true,
    },
    capabilities: [
      'images',
      'undefined_behavior',
      'missing_fields_configurable',
      'linter_options',
      'lint',
      'lint_pdf_report',
      'inspect',
      'docx_output',
      ...(playground ? ['playground'] : []),
    ],
    engine: {
      name: 'docxtemplater + Jinja module',
      dialect: 'docxtpl (Jinja 2/3)',
      docxtemplater: STATIC.docxtemplater,
      pizzip: STATIC.pizzip,
    },
    converter: converter
      ? { ...converter, reported_by: 'worker' }
      : { kind: 'unknown', version: 'unknown', reported_by: 'none' },
  };
}
