import type { EventRow, EventStore, Queryable, SqlDialect } from '../../database/dialects/sql-dialect.js';
import { PreparedStatement } from '../../database/prepared-statement.js';
import {
  type AuditEventFields,
  canonicalInstant,
  canonicalInstantFromText,
  EVENT_FIELDS,
  type EventFields,
  metadataFromText,
  rowHash,
  type SecurityEventFields,
  wellFormed,
} from './canonical.js';

const int = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** An event about to be written by AuditService or SecurityEventsService. */
export interface NewEvent {
  /** taken by the writer, not defaulted by the database: the row hash covers it and is computed before the insert */
  occurredAt: Date;
  /** `occurredAt` as the hash covers it */
  instant: string;
  /** the sanitized metadata as stored */
  metadataText: string | null;
  /** the document the hash covers: the stored text read back (a JSON round trip: no undefined, no Dates) */
  metadata: unknown;
}

export function newEvent(sanitizedMetadata: unknown): NewEvent {
  const metadataText = sanitizedMetadata === null ? null : JSON.stringify(sanitizedMetadata);
  const occurredAt = new Date();
  return {
    occurredAt,
    instant: canonicalInstant(occurredAt),
    metadataText,
    metadata: metadataText === null ? null : (JSON.parse(metadataText) as unknown),
  };
}

/** Text from the client, cut to the column's length; cut by code points' halves it could end in a lone surrogate, which no engine stores as given. */
export function clippedText(value: string | null | undefined, maxLength: number): string | null {
  return value ? wellFormed(value.slice(0, maxLength)) : null;
}

const columnOf = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Each hashed field with its column (`occurredAt` → `occurred_at`), in column order; computed once, the audit insert is a hot path. */
const FIELD_COLUMNS: Record<EventStore, ReadonlyArray<readonly [field: string, column: string]>> = {
  audit_events: EVENT_FIELDS.audit_events.map((f) => [f, columnOf(f)] as const),
  security_events: EVENT_FIELDS.security_events.map((f) => [f, columnOf(f)] as const),
};

/** The columns of an event's insert, in order: every hashed field, then `row_hash`. */
export function eventColumns(store: EventStore): string[] {
  return [...FIELD_COLUMNS[store].map(([, column]) => column), 'row_hash'];
}

/** The insert's values: each hashed field under its column (the instant as the Date, the metadata as its text) and the row hash. */
export function eventValues<S extends EventStore>(store: S, fields: EventFields<S>, event: NewEvent): Record<string, unknown> {
  const named = fields as unknown as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const [field, column] of FIELD_COLUMNS[store]) values[column] = named[field];
  values.occurred_at = event.occurredAt;
  values.metadata = event.metadataText;
  values.row_hash = rowHash(store, fields);
  return values;
}

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

const NEXT_ID: Record<EventStore, PreparedStatement<{ m: string | number | null }>> = {
  audit_events: new PreparedStatement('SELECT MIN(id) AS m FROM audit_events WHERE id > :after'),
  security_events: new PreparedStatement('SELECT MIN(id) AS m FROM security_events WHERE id > :after'),
};

/**
 * The smallest stored id above `after`, or undefined. A reader walking ids in windows jumps with it
 * over a window that held nothing: ids are dense in a store the service writes, but one row at an
 * id far ahead (its sequence moved, or a row inserted around the service) would else cost a query
 * per empty window up to it — days of them at 10^12.
 */
export async function nextEventId(db: Queryable, store: EventStore, after: number): Promise<number | undefined> {
  const row = await NEXT_ID[store].one(db, { after });
  return row?.m === null || row?.m === undefined ? undefined : Number(row.m);
}

/**
 * Gives every row of a store that has no row_hash the hash of its current fields, in id windows.
 * Used once when hashing is introduced (the migration) and by fixtures that write rows in bulk.
 * Runs as the schema owner: the service's role may not update the event stores.
 */
export async function backfillRowHashes(
  db: { query<T>(sql: string, parameters?: unknown[]): Promise<T> },
  dialect: SqlDialect,
  store: EventStore,
): Promise<number> {
  const [top] = await db.query<Array<{ m: string | number | null }>>(`SELECT MAX(id) AS m FROM ${store}`);
  const max = Number(top?.m ?? 0);
  let filled = 0;
  for (let after = 0; after < max; after += ID_WINDOW) {
    const { sql, parameters } = dialect.eventRows(store, { afterId: after, upToId: after + ID_WINDOW }, 'full');
    const rows = await db.query<EventRow[]>(sql, parameters);
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
