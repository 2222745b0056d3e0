import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseInstant } from './utc-instant.js';

/** A keyset position: the (occurred_at, id) of the last row of a page. */
export interface CursorPosition {
  /** canonical instant (see utc-instant.ts) */
  t: string;
  /** the event id, a decimal integer: any the store holds, so that every cursor the list hands out is taken back */
  id: string;
}

const ID = /^(0|-?[1-9]\d{0,18})$/;

/**
 * The opaque `nextCursor` of GET /api/v1/audit/events: base64url of `{t, id}`, a dot, and an
 * HMAC-SHA-256 of that payload. Clients cannot forge or edit a position; anything that does not
 * verify decodes to null, and the query then starts from the top (docs/api.md "Audit trail").
 */
export class AuditCursorCodec {
  constructor(private readonly key: Buffer) {}

  encode(position: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify({ t: position.t, id: position.id })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(cursor: unknown): CursorPosition | null {
    if (typeof cursor !== 'string' || cursor.length > 512) return null;
    const dot = cursor.indexOf('.');
    if (dot <= 0) return null;
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(payload), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { t?: unknown; id?: unknown };
      if (typeof value.t !== 'string' || typeof value.id !== 'string' || !ID.test(value.id)) return null;
      const t = parseInstant(value.t);
      return t === null ? null : { t, id: value.id };
    } catch {
      return null;
    }
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
