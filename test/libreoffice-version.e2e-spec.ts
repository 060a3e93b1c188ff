/**
 * One LibreOffice for every route (issue 28, docs/conversion.md#which-libreoffice): 25.2 or newer,
 * chosen by measurement over Debian 12's 7.4. `npm start` and the tests install it through
 * scripts/ensure-system-deps.sh (bookworm-backports on Debian 12; Writer and Calc), the worker-libreoffice image the
 * same way, and Gotenberg 8's images ship 25.x. These checks fail when one of them drifts.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LibreOfficePool } from '@app/converters';
import { makeInvoiceDocx, pdfToText, SAMPLE_INVOICE } from './support/converter-fixtures';

const ROOT = join(__dirname, '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const ensureDeps = readFileSync(join(ROOT, 'scripts/ensure-system-deps.sh'), 'utf8');

function stage(name: string): string {
  const start = dockerfile.search(new RegExp(`^FROM \\S+ AS ${name}$`, 'm'));
  expect(start).toBeGreaterThanOrEqual(0);
  const next = dockerfile.slice(start + 1).search(/^FROM /m);
  return next < 0 ? dockerfile.slice(start) : dockerfile.slice(start, start + 1 + next);
}

describe('the LibreOffice the service runs', () => {
  it('is 25.x on this machine, as ensure-system-deps installs it, and the pool converts with it', async () => {
    const version = execFileSync('soffice', ['--version'], { encoding: 'utf8' });
    expect(version).toMatch(/^LibreOffice 25\.\d+\.\d+/m);
    const pool = new LibreOfficePool({ instances: 1 });
    try {
      await pool.start();
      // The pool's soffice.bin is the system's (the default path), not another installation.
      expect(pool.describe().map((s) => s.state)).toContain('idle');
      const pdf = await pool.convert(makeInvoiceDocx(), { jobId: 'lo-version' });
      expect(pdfToText(pdf)).toContain(`Invoice ${SAMPLE_INVOICE.number}`);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('the worker-libreoffice image installs the same packages from bookworm-backports, on a bookworm base, and checks 25.x', () => {
    const lo = stage('worker-libreoffice');
    const installed = /apt-get install -y --no-install-recommends -t bookworm-backports ([^\\&\n]+)/.exec(lo);
    expect(installed).not.toBeNull();
    const dockerPackages = installed![1].trim().split(/\s+/).sort();
    const scriptPackages = /^LO_PACKAGES=\(([^)]*)\)/m.exec(ensureDeps)![1].trim().split(/\s+/).sort();
    expect(dockerPackages).toEqual(scriptPackages);
    expect(dockerPackages).toEqual([
      'libreoffice-calc-nogui',
      'libreoffice-impress-nogui',
      'libreoffice-writer-nogui',
      'python3-uno',
    ]);
    expect(lo).toMatch(/Suites: bookworm-backports/);
    expect(lo).toMatch(/soffice --version \| grep -q '\^LibreOffice 25\\\.'/);
    // Backports of the base image's own release: the suite and the base must agree.
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:\d+-bookworm-slim$/m);
  });

  it('ensure-system-deps upgrades a LibreOffice older than 25 on Debian 12 from bookworm-backports', () => {
    expect(ensureDeps).toMatch(/"\$installed_lo" -lt 25/);
    expect(ensureDeps).toMatch(/-t "\$lo_backports" "\$\{LO_PACKAGES\[@\]\}"/);
    // A non-root user is told the command instead.
    expect(ensureDeps).toMatch(/-t bookworm-backports \$\{LO_PACKAGES\[\*\]\}/);
  });

  it('the Gotenberg route runs gotenberg/gotenberg:8, whose images ship LibreOffice 25.x', () => {
    const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(/image: gotenberg\/gotenberg:8\s*$/m);
  });
});
