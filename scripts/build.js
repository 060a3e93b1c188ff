#!/usr/bin/env node
/**
 * Compiles the service (apps/*, libs/*) to dist/ with SWC: the same
 * transform Jest uses, which keeps the decorator metadata NestJS needs. Type checking is a
 * separate step (`npm run typecheck`). The '@app/*' aliases of tsconfig.json are rewritten to relative paths
 * at build time, so dist/ runs with plain `node` and no path hook. Files that are not TypeScript
 * (e.g. the converter's Python bridge) are copied beside the compiled code.
 *
 *   node scripts/build.js            build when a source is newer than the last build
 *   node scripts/build.js --force    always build
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist');
const STAMP = path.join(OUT, '.build-stamp');
/** tsconfig.json's compilerOptions (it has no comments, so plain JSON). */
function compilerOptions() {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions;
}
const APPS = ['apps/api/src', 'apps/worker/src', 'apps/cli/src'];
const SOURCES = [...APPS, ...Object.values(compilerOptions().paths).map(([dir]) => dir)];

function walk(dir, files = []) {
  if (!fs.existsSync(dir)) return files;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== '__pycache__') walk(full, files);
    } else files.push(full);
  }
  return files;
}

function isTest(file) {
  return /\.(spec|e2e-spec|test)\.ts$/.test(file) || /[/\\](__tests__|fixtures)[/\\]/.test(file);
}

function sourceFiles() {
  return SOURCES.flatMap((dir) => walk(path.join(ROOT, dir))).filter((f) => !isTest(f));
}

/** True when dist/ is missing or older than a source (or than this script or package-lock). */
function needsBuild(files = sourceFiles()) {
  if (!fs.existsSync(STAMP)) return true;
  const built = fs.statSync(STAMP).mtimeMs;
  const inputs = files.concat([
    path.join(__dirname, 'build.js'),
    path.join(ROOT, 'package-lock.json'),
    path.join(ROOT, 'tsconfig.json'),
  ]);
  return inputs.some((f) => fs.existsSync(f) && fs.statSync(f).mtimeMs > built);
}

function build({ force = false, quiet = false } = {}) {
  const files = sourceFiles();
  if (!force && !needsBuild(files)) return false;
  const swc = require('@swc/core');
  const started = Date.now();
  for (const rel of SOURCES) fs.rmSync(path.join(OUT, rel), { recursive: true, force: true });
  let compiled = 0;
  for (const file of files) {
    const rel = path.relative(ROOT, file);
    const target = path.join(OUT, rel).replace(/\.ts$/, '.js');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (!file.endsWith('.ts')) {
      fs.copyFileSync(file, path.join(OUT, rel));
      continue;
    }
    if (file.endsWith('.d.ts')) continue;
    const { code, map } = swc.transformFileSync(file, {
      swcrc: false,
      sourceMaps: true,
      filename: file,
      outputPath: target,
      module: { type: 'commonjs' },
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
        baseUrl: ROOT,
        paths: compilerOptions().paths,
      },
    });
    fs.writeFileSync(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
    if (map) fs.writeFileSync(`${target}.map`, map);
    compiled++;
  }
  fs.writeFileSync(STAMP, new Date().toISOString());
  if (!quiet) console.error(`built ${compiled} files into dist/ in ${Date.now() - started} ms`);
  return true;
}

/** Entry points of the built service. */
const ENTRY = {
  api: path.join(OUT, 'apps/api/src/main.js'),
  worker: path.join(OUT, 'apps/worker/src/main.js'),
  cli: path.join(OUT, 'apps/cli/src/main.js'),
};

/**
 * Node's arguments for each service process, before its entry point: `npm start`
 * (scripts/start.js), the tests' and benchmarks' harness and the Dockerfile's CMDs use these
 * (test/k8s-manifests.e2e-spec.ts checks the Dockerfile against them).
 *
 * The worker's --heap-growing-percent=200 lets V8's old generation grow to 3× what survived the
 * last full collection (V8 picks 1.1–4× itself). A worker's live heap is small (~27 MB) and it
 * allocates 12–22 MB between scavenges under load; V8 starts a full mark-compact as soon as the old
 * generation's headroom is below the young generation's size (Heap::IncrementalMarkingLimitReached),
 * and with its own factor that stayed true: under PDF load the worker ran a full collection after
 * nearly every scavenge, every 0.8–1.3 s, each freeing ~1.5 MB (--trace-gc, Node 20, 22 and 24).
 * With this setting one runs every 8–10 s. Corpus invoice, 20 rows, 200-document bursts at 4
 * callers, Node 20, three alternating pairs: worker CPU per document 4.0–5.0 → 3.5–4.0 ms,
 * throughput 24.5–26.5 → 25.6–26.4 documents/s; the heap's committed size grew ~10 MB.
 */
const NODE_ARGS = {
  api: ['--enable-source-maps'],
  worker: ['--enable-source-maps', '--heap-growing-percent=200'],
};

module.exports = { build, needsBuild, compilerOptions, ENTRY, NODE_ARGS, ROOT };

if (require.main === module) {
  try {
    if (!build({ force: process.argv.includes('--force') })) console.error('dist/ is up to date');
  } catch (e) {
    console.error(e && e.message ? e.message : e);
    process.exit(1);
  }
}
