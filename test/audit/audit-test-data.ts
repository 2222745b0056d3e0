import type { TestApp } from '../support/test-app.js';

export interface SeedSpec {
  /** how many events */
  count: number;
  /** the newest occurred_at (ISO); event g (1..count) is `floor(g / sharePerSecond)` seconds older */
  newest: string;
  /** events per shared timestamp */
  sharePerSecond: number;
  /** actor of event g: actors[g % actors.length] */
  actors: number[];
  /** target type of event g: targetTypes[g % targetTypes.length] */
  targetTypes: string[];
  /** target id of event g: String(g % targetIds) */
  targetIds: number;
}

/** Inserts audit events set-based (one statement), on either engine. */
export async function seedEvents(t: TestApp, s: SeedSpec): Promise<void> {
  const actors = s.actors.map((a, i) => `WHEN ${i} THEN ${Number(a)}`).join(' ');
  const types = s.targetTypes.map((x, i) => `WHEN ${i} THEN '${x.replace(/'/g, "''")}'`).join(' ');
  if (t.engine === 'postgres') {
    await t.query(
      `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id, metadata)
       SELECT $1::timestamptz - (g / $2) * interval '1 second',
              CASE g % ${s.actors.length} ${actors} END,
              'test.seed',
              CASE g % ${s.targetTypes.length} ${types} END,
              (g % $3)::text,
              jsonb_build_object('n', g)
         FROM generate_series(1, $4::int) AS g`,
      [s.newest, s.sharePerSecond, s.targetIds, s.count],
    );
  } else {
    await t.query(
      `WITH n AS (SELECT TOP ($4) CAST(ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS int) AS g FROM sys.all_objects a CROSS JOIN sys.all_objects b)
       INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id, metadata)
       SELECT DATEADD(second, -(g / $2), CAST($1 AS datetime2(7))),
              CASE g % ${s.actors.length} ${actors} END,
              'test.seed',
              CASE g % ${s.targetTypes.length} ${types} END,
              CAST(g % $3 AS varchar(20)),
              CONCAT('{"n":', g, '}')
         FROM n`,
      [s.newest.replace(/Z$/, ''), s.sharePerSecond, s.targetIds, s.count],
    );
  }
}

/** Inserts one audit event at an exact instant (text, full precision); returns its id. */
export async function insertEvent(
  t: TestApp,
  e: { occurredAt: string; actorUserId: number; targetType?: string; targetId?: string; action?: string; metadata?: unknown; correlationId?: string },
): Promise<number> {
  const params = [
    e.occurredAt,
    e.actorUserId,
    e.action ?? 'test.one',
    e.targetType ?? 'test_one',
    e.targetId ?? '1',
    e.metadata === undefined ? null : JSON.stringify(e.metadata),
    e.correlationId ?? null,
  ];
  if (t.engine === 'postgres') {
    const [row] = await t.query(
      `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id, metadata, correlation_id)
       VALUES ($1::timestamptz, $2, $3, $4, $5, $6::jsonb, $7::uuid) RETURNING id`,
      params,
    );
    return Number(row.id);
  }
  const [row] = await t.query(
    `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id, metadata, correlation_id)
     OUTPUT INSERTED.id VALUES (CAST($1 AS datetime2(7)), $2, $3, $4, $5, $6, $7)`,
    [e.occurredAt.replace(/Z$/, ''), ...params.slice(1)],
  );
  return Number(row.id);
}

/** ISO instant `ms` milliseconds before now. */
export const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
