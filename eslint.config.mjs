import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/*
 * Who may import whom (the layout in docs/architecture.md, "What each library owns"):
 *   apps/* → libs/* through their @app/* alias, never another app;
 *   libs/* → other libs through @app/*, never an app;
 *   production code → never test code; a library only through its index (no deep @app/x/y).
 */
const APP_SRC = '(^|/)(apps|api|worker|cli)/src(/|$)|(^|/)apps/';
const LIB_SRC =
  '(^|/)libs/|(^|/)(contracts|config|logging|ooxml|engine|converters|queue|pipeline|telemetry|signing|store)/src(/|$)';
const DEEP_ALIAS = { regex: '^@app/[^/]+/', message: 'import a library through its index: @app/name' };
const NO_TEST = { regex: '(^|/)test/', message: 'production code never imports test code' };
const NO_APP = {
  regex: APP_SRC,
  message: 'an app or library never imports an app: move shared code to libs/',
};
const NO_LIB_PATH = { regex: LIB_SRC, message: 'import a library through its @app/* alias' };
// The document pipeline (libs/pipeline) is the apps' to call; the API never loads LibreOffice's code
// (media types come from @app/contracts' OUTPUT_MEDIA); the engine knows no converter.
const NO_PIPELINE = {
  regex: '^@app/pipeline$',
  message: 'only the apps call the document pipeline (@app/pipeline)',
};
const NO_CONVERTER_IN_API = {
  regex: '^@app/(converters|pipeline)$',
  message: "the API never loads LibreOffice's code: media types are in @app/contracts (OUTPUT_MEDIA)",
};
const NO_CONVERTER_IN_ENGINE = {
  regex: '^@app/(converters|pipeline)$',
  message:
    'the engine knows no converter: what one needs arrives as packagePasses (libs/converters/src/prepare)',
};
// libs/signing signs what the pipeline made: it builds on contracts and config only (docs/signing.md).
const SIGNING_ONLY_CONTRACTS = {
  regex: '^@app/(?!contracts$|config$)',
  message: 'libs/signing imports @app/contracts and @app/config only',
};
const boundaries = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

/*
 * Redis belongs to libs/queue (its stores, connections and scripts): elsewhere in apps/ and libs/
 * nothing imports ioredis, and no Redis command is called on anything named like a connection
 * (`redis.get(…)`, `this.redis.multi()`, `deps.redis.eval(…)`). Specs and test/ may use Redis.
 */
const NO_IOREDIS = {
  regex: '^ioredis(/|$)',
  message: 'only libs/queue talks to Redis: use its stores (PayloadStore, JobRecordStore, WorkerRegistry)',
};
// Command methods of ioredis (each also with a Buffer-returning twin: getBuffer, lindexBuffer…).
// prettier-ignore
const REDIS_COMMANDS = [
  'get', 'set', 'del', 'exists', 'expire', 'pexpire', 'ttl', 'pttl', 'incr', 'incrby', 'hget',
  'hgetall', 'hset', 'hsetnx', 'hdel', 'hincrby', 'lpush', 'rpush', 'lpop', 'rpop', 'blpop',
  'lindex', 'lrange', 'llen', 'sadd', 'srem', 'smembers', 'zadd', 'zrem', 'zcount', 'zcard',
  'zrange', 'zrangebyscore', 'multi', 'pipeline', 'exec', 'eval', 'evalsha', 'script', 'publish',
  'subscribe', 'time', 'scan', 'keys', 'call', 'sendCommand',
];
const REDIS_CALL = `/^(${REDIS_COMMANDS.join('|')})(Buffer)?$/`;
const NO_REDIS_CALLS = {
  'no-restricted-syntax': [
    'error',
    ...['callee.object.name', 'callee.object.property.name'].map((receiver) => ({
      selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=${REDIS_CALL}][${receiver}=/redis/i]`,
      message:
        'only libs/queue calls Redis commands: use its stores (PayloadStore, JobRecordStore, WorkerRegistry)',
    })),
  ],
};

/*
 * Unit specs (`*.spec.ts` beside the code, `npm run test:unit`) run without Redis, LibreOffice,
 * Chromium, Python or the PDF tools (docs/testing.md): they import none of test/'s helpers that
 * start or call those, and spawn none of them. A test that needs one goes to test/ as *.e2e-spec.ts.
 */
const SERVICE_MESSAGE =
  'a unit spec needs no service (Redis, LibreOffice, Chromium, Python, PDF tools): move this test to test/*.e2e-spec.ts';
const NO_SERVICE_HARNESS = {
  regex:
    '(^|/)test/(service-harness|support/(redis-cluster|postgres|docxtpl|converter-fixtures|pdf-inspect|page-compare|barcode-decode))(\\.ts)?$',
  message: SERVICE_MESSAGE,
};
const SERVICE_PROGRAMS =
  '/(^|\\/)(redis-server|redis-cli|soffice|soffice\\.bin|libreoffice|chromium|python3?(\\.\\d+)?|qpdf|pdftoppm|pdftotext|pdfinfo|zbarimg|ZXingReader|postgres|initdb)$/';
const SPAWNERS = '/^(spawn|spawnSync|execFile|execFileSync|exec|execSync|fork)$/';
const NO_SERVICE_SPAWN = {
  'no-restricted-syntax': [
    'error',
    ...['callee.name', 'callee.property.name'].map((callee) => ({
      selector: `CallExpression[${callee}=${SPAWNERS}] > Literal.arguments:first-child[value=${SERVICE_PROGRAMS}]`,
      message: SERVICE_MESSAGE,
    })),
    ...['callee.name', 'callee.property.name'].map((callee) => ({
      selector: `CallExpression[${callee}=${SPAWNERS}] > TemplateLiteral.arguments:first-child[quasis.length=1][quasis.0.value.cooked=${SERVICE_PROGRAMS}]`,
      message: SERVICE_MESSAGE,
    })),
  ],
};

export default tseslint.config(
  {
    ignores: ['node_modules/**', 'dist/**', 'coverage/**', '**/*.py', 'clients/typescript/src/generated/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        FormData: 'readonly',
        Blob: 'readonly',
        Response: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    rules: { ...boundaries(DEEP_ALIAS, NO_APP, NO_LIB_PATH, NO_TEST, NO_IOREDIS), ...NO_REDIS_CALLS },
  },
  {
    files: ['apps/api/**/*.ts'],
    rules: boundaries(DEEP_ALIAS, NO_APP, NO_LIB_PATH, NO_TEST, NO_IOREDIS, NO_CONVERTER_IN_API),
  },
  {
    files: ['libs/**/*.ts'],
    ignores: ['libs/pipeline/**'],
    rules: boundaries(DEEP_ALIAS, NO_APP, NO_LIB_PATH, NO_TEST, NO_IOREDIS, NO_PIPELINE),
  },
  {
    files: ['libs/signing/**/*.ts'],
    rules: boundaries(
      DEEP_ALIAS,
      NO_APP,
      NO_LIB_PATH,
      NO_TEST,
      NO_IOREDIS,
      NO_PIPELINE,
      SIGNING_ONLY_CONTRACTS,
    ),
  },
  {
    files: ['libs/engine/**/*.ts'],
    rules: boundaries(DEEP_ALIAS, NO_APP, NO_LIB_PATH, NO_TEST, NO_IOREDIS, NO_CONVERTER_IN_ENGINE),
  },
  {
    files: ['libs/queue/**/*.ts'],
    rules: {
      ...boundaries(DEEP_ALIAS, NO_APP, NO_LIB_PATH, NO_TEST, NO_PIPELINE),
      'no-restricted-syntax': 'off',
    },
  },
  {
    files: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts'],
    rules: { ...boundaries(DEEP_ALIAS, NO_APP, NO_LIB_PATH, NO_SERVICE_HARNESS), ...NO_SERVICE_SPAWN },
  },
  {
    // The end-to-end tests reach a library through its index, as its users do.
    files: ['test/**/*.ts'],
    rules: boundaries(DEEP_ALIAS, NO_LIB_PATH),
  },
);
