/**
 * The version of the worker's converter, asked once at start-up: `soffice --version` for the
 * embedded LibreOffice, Gotenberg's GET /version. `unknown` when it does not answer; GET /version
 * of the API reports what the workers published, honestly.
 */
import { execFile } from 'node:child_process';
import type { ConverterConfig } from '@app/converters';
import type { PdfConverter } from '@app/converters';

const TIMEOUT_MS = 10_000;

function sofficeVersion(): Promise<string> {
  return new Promise((resolve) => {
    execFile('soffice', ['--version'], { timeout: TIMEOUT_MS }, (err, stdout) => {
      const line = String(stdout ?? '')
        .split('\n')
        .find((l) => /LibreOffice/i.test(l));
      resolve(err || !line ? 'unknown' : line.trim());
    });
  });
}

async function gotenbergVersion(url: string): Promise<string> {
  try {
    const res = await fetch(`${url}/version`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!res.ok) return 'unknown';
    const text = (await res.text()).trim();
    return text && text.length < 100 ? `Gotenberg ${text}` : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function converterVersion(converter: PdfConverter, config: ConverterConfig): Promise<string> {
  if (converter.name === 'gotenberg' && config.gotenbergUrl) return gotenbergVersion(config.gotenbergUrl);
  if (converter.name === 'libreoffice') return sofficeVersion();
  return Promise.resolve('unknown');
}
