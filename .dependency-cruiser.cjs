/**
 * Import rules checked by `npm test` (scripts/check-deps.mjs runs them; with Node 22 or later
 * `npx depcruise apps libs` does the same). Type-only imports count: a cycle through types is
 * still two files that cannot be read one without the other.
 */
const ENGINE = '^libs/engine/src/';
/**
 * The engine flows one way: package (the formats' descriptions) → syntax → runtime → docx → rich → charts
 * → render (then lint, inspect).
 */
const LAYERS = ['package', 'syntax', 'runtime', 'docx', 'rich', 'charts'];
const ABOVE = (i) => [
  ...LAYERS.slice(i + 1),
  'render\\.ts',
  'environment\\.ts',
  'lint',
  'inspect',
  'index\\.ts',
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycles, type imports included (the generated client is as its generator writes it).',
      from: { pathNot: '^clients/typescript/src/generated/' },
      to: { circular: true },
    },
    {
      // no-circular sees modules: documents/a.ts → jobs/b.ts → documents/c.ts is no module cycle,
      // yet the two folders cannot be read (or moved) one without the other.
      name: 'no-folder-cycles-in-api',
      severity: 'error',
      comment: 'The folders of apps/api/src import each other one way only (type imports included).',
      scope: 'folder',
      from: { path: '^apps/api/src/[^/]+$' },
      to: { path: '^apps/api/src/[^/]+$', circular: true },
    },
    ...LAYERS.map((layer, i) => ({
      name: `engine-${layer}-flows-one-way`,
      severity: 'error',
      comment: `libs/engine/src/${layer} imports only the layers below it (${LAYERS.slice(0, i).join(', ') || 'none'}).`,
      // Specs test a layer through the whole render.
      from: { path: `${ENGINE}${layer}/`, pathNot: '\\.spec\\.ts$' },
      to: { path: `${ENGINE}(${ABOVE(i).join('|')})` },
    })),
    {
      name: 'telemetry-imports-no-library',
      severity: 'error',
      comment:
        'libs/telemetry (traces) stands under every library and app: it imports none of them, so any of them may use withSpan.',
      from: { path: '^libs/telemetry/' },
      to: { path: '^(apps|libs)/', pathNot: '^libs/telemetry/' },
    },
    {
      name: 'pipeline-imports-engine-converters-contracts-config-logging',
      severity: 'error',
      comment:
        'libs/pipeline (the document pipeline) builds on engine, converters, contracts, config, logging and telemetry only; never on an app or the queue.',
      from: { path: '^libs/pipeline/' },
      to: { path: '^(apps/|libs/queue/)' },
    },
    {
      name: 'signing-imports-contracts-and-config-only',
      severity: 'error',
      comment:
        'libs/signing (PAdES signatures, docs/signing.md) builds on contracts and config only: the pipeline calls it, not the reverse.',
      from: { path: '^libs/signing/' },
      to: { path: '^(apps/|libs/(?!contracts/|config/|signing/))' },
    },
    {
      name: 'store-imports-contracts-config-only',
      severity: 'error',
      comment:
        'libs/store (templates and API keys in PostgreSQL) builds on contracts and config only: the apps combine it with the engine and the queue.',
      from: { path: '^libs/store/' },
      to: { path: '^(apps/|libs/(engine|converters|pipeline|queue)/)' },
    },
    {
      name: 'pg-only-in-libs-store',
      severity: 'error',
      comment: 'PostgreSQL belongs to libs/store.',
      from: { path: '^(apps|libs)/', pathNot: ['^libs/store/', '\\.spec\\.ts$'] },
      to: { path: '^node_modules/pg/' },
    },
    {
      name: 'only-apps-import-the-pipeline',
      severity: 'error',
      comment: 'The pipeline sits above the libraries: the apps call it, no library does.',
      from: { path: '^libs/', pathNot: '^libs/pipeline/' },
      to: { path: '^libs/pipeline/' },
    },
    {
      name: 'engine-knows-no-converter',
      severity: 'error',
      comment:
        "The engine fills; what a converter needs done to the .docx is the converter's (libs/converters/src/prepare).",
      // Specs may convert what they fill (rich/pdf.spec.ts).
      from: { path: '^libs/engine/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^libs/(converters|pipeline)/' },
    },
    {
      name: 'api-loads-no-converter',
      severity: 'error',
      comment:
        "The API process never loads LibreOffice's code: media types come from @app/contracts (OUTPUT_MEDIA), conversion runs in the worker.",
      from: { path: '^apps/api/' },
      to: { path: '^libs/(converters|pipeline)/' },
    },
    {
      name: 'bullmq-only-in-libs-queue',
      severity: 'error',
      comment: 'Everything that touches BullMQ lives in libs/queue (tests may play a worker).',
      from: { path: '^(apps|libs)/', pathNot: ['^libs/queue/', '\\.spec\\.ts$'] },
      to: { path: '^node_modules/bullmq/' },
    },
    {
      name: 'ioredis-only-in-libs-queue',
      severity: 'error',
      comment: 'Redis belongs to libs/queue and its stores (ESLint also refuses Redis commands elsewhere).',
      from: { path: '^(apps|libs)/', pathNot: ['^libs/queue/', '\\.spec\\.ts$'] },
      to: { path: '^node_modules/ioredis/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
  },
};
