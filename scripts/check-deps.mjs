/**
 * `npm test`'s import check: the rules of .dependency-cruiser.cjs (no cycles, type imports
 * included; the engine's layers; BullMQ and ioredis only in libs/queue) over apps/ and libs/. Through
 * dependency-cruiser's API rather than its command, which refuses Node 20 (still supported here).
 * Prints each violation and exits 1 if there is any.
 */
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

process.chdir(join(dirname(fileURLToPath(import.meta.url)), '..'));
const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
const result = await cruise(['apps', 'libs'], { ...options, validate: true }, undefined, {
  tsConfig: extractTSConfig('tsconfig.json'),
});
const { violations, error, totalCruised } = result.output.summary;
for (const v of violations) {
  const via = v.cycle?.length ? ` (cycle: ${v.cycle.map((c) => c.name ?? c).join(' → ')})` : '';
  console.error(`${v.rule.name}: ${v.from} → ${v.to}${via}`);
}
console.error(
  `import check: ${totalCruised} modules, ${error} violation(s), ${violations.filter((v) => v.cycle?.length).length} cycle(s)`,
);
process.exit(error > 0 ? 1 : 0);
