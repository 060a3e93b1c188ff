const { paths } = require('./scripts/build.js').compilerOptions();

/** @type {import('jest').Config} */
// SWC instead of ts-jest: type checking is a separate step (`npm run typecheck`), and SWC
// keeps decorator metadata, which NestJS dependency injection needs.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

// ESM-only packages (parse5, htmlparser2 and its DOM helpers, n2words) compiled to CommonJS for Jest's runtime,
// which cannot require() ES modules on Node 20; Node itself can.
const ESM_ONLY = '(parse5|htmlparser2|domhandler|domutils|domelementtype|dom-serializer|entities|n2words)';

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc, [`/node_modules/${ESM_ONLY}/.+\\.js$`]: swc },
  transformIgnorePatterns: [`/node_modules/(?!${ESM_ONLY}/)`],
  // The libraries' aliases, read from tsconfig.json so there is one list.
  moduleNameMapper: Object.fromEntries(
    Object.entries(paths).map(([alias, [dir]]) => [`^${alias}$`, `<rootDir>/${dir}`]),
  ),
};

/*
 * Two tiers, chosen by where a file sits (docs/testing.md), so a new spec lands in its tier by its
 * path alone:
 *   unit: *.spec.ts beside the code — no Redis, LibreOffice, Chromium, Python or network;
 *   e2e:  test/**\/*.e2e-spec.ts — real services, started by the tests themselves.
 * `jest` runs both in one invocation; `--selectProjects unit` (npm run test:unit) or `e2e` picks one.
 */
module.exports = {
  // Read from the root config only (Jest's global config), not from each project.
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
