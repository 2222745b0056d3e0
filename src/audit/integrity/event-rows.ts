import type { EventRow, EventStore, SqlDialect } from '../../database/dialects/sql-dialect.js';
import {
  type AuditEventFields,
  canonicalInstantFromText,
  type EventFields,
  metadataFromText,
  rowHash,
  type SecurityEventFields,
} from './canonical.js';

const int = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** The hashed fields of a row read with SqlDialect.eventRows(…, 'full'). */
export function fieldsOfRow<S extends EventStore>(store: S, row: EventRow): EventFields<S> {
  const occurredAt = canonicalInstantFromText(String(row.occurred_at));
  if (store === 'audit_events') {
    const fields: AuditEventFields = {
      occurredAt,
      actorUserId: Number(row.actor_user_id),
      actorRoleId: int(row.actor_role_id),
      ip: str(row.ip),
      userAgent: str(row.user_agent),
      correlationId: str(row.correlation_id),
      action: String(row.action),
      targetType: String(row.target_type),
      targetId: String(row.target_id),
      metadata: metadataFromText(str(row.metadata)),
    };
    return fields as EventFields<S>;
  }
  const fields: SecurityEventFields = {
    occurredAt,
    action: String(row.action),
    result: String(row.result),
    actorUserId: int(row.actor_user_id),
    attemptedUsername: str(row.attempted_username),
    sessionId: str(row.session_id),
    failureReason: str(row.failure_reason),
    ip: str(row.ip),
    userAgent: str(row.user_agent),
    metadata: metadataFromText(str(row.metadata)),
  };
  return fields as EventFields<S>;
}

/** The row hash recomputed from a row's stored fields; null when they cannot be read (e.g. metadata that is not JSON). */
export function recomputeRowHash(store: EventStore, row: EventRow): string | null {
  try {
    return rowHash(store, fieldsOfRow(store, row));
  } catch {
    return null;
  }
}

/** Ids per window when rows are read in id order: a bounded result per query on both engines. */
export const ID_WINDOW = 20_000;

/**
 * Gives every row of a store that has no row_hash the hash of its current fields, in id windows.
 * Used once when hashing is introduced (the migration) and by fixtures that write rows in bulk.
 * Runs as the schema owner: the service's role may not update the event stores.
 */
export async function backfillRowHashes(
  db: { query(sql: string, parameters?: unknown[]): Promise<any> },
  dialect: SqlDialect,
  store: EventStore,
): Promise<number> {
  const [top]: Array<{ m: string | number | null }> = await db.query(`SELECT MAX(id) AS m FROM ${store}`);
  const max = Number(top?.m ?? 0);
  let filled = 0;
  for (let after = 0; after < max; after += ID_WINDOW) {
    const { sql, parameters } = dialect.eventRows(store, { afterId: after, upToId: after + ID_WINDOW }, 'full');
    const rows: EventRow[] = await db.query(sql, parameters);
    const missing = rows.filter((r) => r.row_hash === null).map((r) => ({ id: String(r.id), h: recomputeRowHash(store, r) }));
    const hashes = missing.filter((m): m is { id: string; h: string } => m.h !== null);
    if (!hashes.length) continue;
    if (dialect.engine === 'postgres') {
      await db.query(`UPDATE ${store} e SET row_hash = v.h FROM unnest($1::bigint[], $2::text[]) AS v(id, h) WHERE e.id = v.id`, [
        hashes.map((m) => m.id),
        hashes.map((m) => m.h),
      ]);
    } else {
      await db.query(`UPDATE e SET row_hash = j.h FROM dbo.${store} e JOIN OPENJSON(@0) WITH (id bigint '$.id', h char(64) '$.h') j ON j.id = e.id`, [
        JSON.stringify(hashes),
      ]);
    }
    filled += hashes.length;
  }
  return filled;
}
