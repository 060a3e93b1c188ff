/**
 * The template store's state as Bull Board shows it: the board has no panel for anything but
 * queues, so the render queue's description line carries it (read again on each board call).
 */
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';

/** `up`: PostgreSQL answered (true), did not (false), or none is configured (undefined). */
export function databaseStatusLine(up: boolean | undefined, at: Date): string {
  const when = `${at.toISOString().slice(11, 19)} UTC`;
  if (up === undefined) return 'Stored templates: off (no DATABASE_URL)';
  return up
    ? `Stored templates: PostgreSQL up (checked ${when})`
    : `Stored templates: PostgreSQL DOWN (checked ${when}); renders by id answer 503, uploads still render`;
}

/** The render queue's adapter, whose description is the latest database status line. */
export class RenderQueueAdapter extends BullMQAdapter {
  status = '';

  override getDescription(): string {
    return this.status;
  }
}
