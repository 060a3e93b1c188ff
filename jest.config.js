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

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc, [`/node_modules/${ESM_ONLY}/.+\\.js$`]: swc },
  transformIgnorePatterns: [`/node_modules/(?!${ESM_ONLY}/)`],
  // The libraries' aliases, read from tsconfig.json so there is one list.
  moduleNameMapper: Object.fromEntries(
    Object.entries(paths).map(([alias, [dir]]) => [`^${alias}$`, `<rootDir>/${dir}`]),
  ),
  testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  testTimeout: 60000,
};
