/**
 * What GET /version tells: this service's version, the API forms and features it accepts (so a
 * caller of any seed system version can check it is served), the engine and the converter.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type ConverterInfo, UNDEFINED_BEHAVIORS, type UndefinedMode } from '@app/contracts';

/** The seed system versions whose forms this service answers. */
export const COMPATIBLE_WITH = ['1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7', '1.8', '1.8.1'];

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

export interface VersionInfo {
  name: string;
  version: string;
  api_version: string;
  compatible_with: string[];
  modes: Record<string, string>;
  undefined_behaviors: string[];
  /** The seed system's object, to the letter. */
  features: {
    undefined_behavior_options: string[];
    default_undefined_behavior: string;
    missing_fields_handling: string;
  };
  /** Ours, beside it: what this service does beyond the seed system's forms. */
  capabilities: string[];
  engine: { name: string; dialect: string; docxtemplater: string; pizzip: string };
  converter: ConverterInfo & { reported_by: 'worker' | 'none' };
}

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
      // Missing fields follow undefined_behavior, per request or the service's default.
      missing_fields_handling: 'configurable',
    },
    capabilities: [
      'images',
      'undefined_behavior',
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
