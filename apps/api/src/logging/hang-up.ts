import type { Response } from 'express';

/**
 * Aborts when the caller hangs up before its answer is sent, so the queue withdraws a job (a
 * document, a lint report) nobody waits for any more.
 */
export function hangUpSignal(res: Response): AbortSignal {
  const hangUp = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) hangUp.abort();
  });
  return hangUp.signal;
}
