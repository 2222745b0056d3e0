import { describe, expect, it } from '@jest/globals';
import { type DataSource, QueryFailedError } from 'typeorm';
import { TurnOrder } from '../../common/concurrency/turn-order.js';
import { PostgresDialect } from './postgres.dialect.js';
import { ceilInstant } from './sql-dialect.js';
import { FULL_AUDIT_PAGE_QUERY } from './audit-page-query.fixture.js';

const dialect = new PostgresDialect();

describe('PostgresDialect audit events page', () => {
  it('writes the keyset position as a row comparison plus a plain bound that prunes partitions, at microsecond precision', () => {
    const { sql, parameters } = dialect.auditEventsPage(FULL_AUDIT_PAGE_QUERY);
    expect(sql).toBe(`SELECT e.id::text AS id,
       to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_at,
       e.actor_user_id, u.username AS actor_username, e.actor_role_id, e.ip, e.user_agent,
       e.correlation_id::text AS correlation_id, e.action, e.target_type, e.target_id, e.metadata::text AS metadata
FROM audit_events e
LEFT JOIN users u ON u.id = e.actor_user_id
WHERE e.actor_user_id = $1
  AND e.target_type = $2
  AND e.target_id = $3
  AND e.occurred_at >= $4::timestamptz
  AND e.occurred_at <= $5::timestamptz
  AND e.occurred_at <= $6::timestamptz
  AND (e.occurred_at, e.id) < ($6::timestamptz, $7::bigint)
ORDER BY e.occurred_at DESC, e.id DESC
LIMIT $8`);
    expect(parameters).toEqual([
      7,
      'usuario',
      '42',
      '2025-01-01T00:00:00.000000Z',
      '2025-03-31T23:59:59.999999Z',
      '2025-03-01T12:00:00.123456Z',
      '1234',
      51,
    ]);
  });

  it('reads the first page without a WHERE clause', () => {
    const { sql, parameters } = dialect.auditEventsPage({ rows: 51 });
    expect(sql).not.toContain('WHERE');
    expect(parameters).toEqual([51]);
  });
});

describe('PostgresDialect insertStatement', () => {
  it('answers the new row with RETURNING, and nothing without returning columns', () => {
    expect(dialect.insertStatement('medios', ['codigo', 'nombre'], ['id', 'codigo'])).toBe(
      'INSERT INTO medios (codigo, nombre) VALUES (:codigo, :nombre) RETURNING id, codigo',
    );
    expect(dialect.insertStatement('audit_events', ['action'])).toBe('INSERT INTO audit_events (action) VALUES (:action)');
  });
});

describe('PostgresDialect jsonArrayContains', () => {
  it('casts the text document to jsonb and tests containment of the parameter in the array under the key', () => {
    expect(dialect.jsonArrayContains('u.permission_overrides', 'denied', ':p0')).toBe(
      "((CAST(u.permission_overrides AS jsonb) -> 'denied') @> jsonb_build_array(CAST(:p0 AS text)))",
    );
  });

  it('takes only plain identifiers and a :named parameter', () => {
    expect(() => dialect.jsonArrayContains('u.x; DROP TABLE users', 'denied', ':p0')).toThrow('not a plain SQL identifier');
    expect(() => dialect.jsonArrayContains('u.permission_overrides', "denied'", ':p0')).toThrow('not a plain SQL identifier');
    expect(() => dialect.jsonArrayContains('u.permission_overrides', 'denied', "'x'")).toThrow('not a :named parameter');
  });
});

describe('PostgresDialect read replica', () => {
  it('starts every session of a replica pool read-only, and keeps the role switch', () => {
    const settings = { url: 'postgres://u@standby/medios', poolSize: 5, statementTimeoutMs: 1000, connectTimeoutMs: 1000, applicationName: 'x' };
    const options = (o: object) =>
      (new PostgresDialect().dataSourceOptions({ ...settings, ...o }) as unknown as { extra: { options: string } }).extra.options;
    expect(options({ readOnly: true, role: 'medios_app' })).toBe('-c TimeZone=UTC -c role=medios_app -c default_transaction_read_only=on');
    expect(options({})).toBe('-c TimeZone=UTC');
  });
});

describe('PostgresDialect connection turns', () => {
  it("puts a TurnOrder in place of pg-pool's empty line of waiting acquisitions, and refuses a pool that keeps none there", async () => {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ max: 1 });
    const source = { driver: { master: pool } } as unknown as DataSource;
    new PostgresDialect().serveConnectionsInTurns(source, () => '');
    expect((pool as unknown as { _pendingQueue: unknown })._pendingQueue).toBeInstanceOf(TurnOrder);
    await pool.end();
    expect(() => new PostgresDialect().serveConnectionsInTurns({ driver: { master: {} } } as unknown as DataSource, () => '')).toThrow(
      /_pendingQueue/,
    );
  });
});

describe('ceilInstant (an inclusive lower bound at the engine precision)', () => {
  it('keeps an instant with no finer digits and raises one with finer digits, carrying into the seconds', () => {
    expect(ceilInstant('2026-11-24T02:12:36.756000000Z', 6)).toBe('2026-11-24T02:12:36.756000000Z');
    expect(ceilInstant('2026-11-24T02:12:36.756000900Z', 6)).toBe('2026-11-24T02:12:36.756001000Z');
    expect(ceilInstant('2026-11-24T02:12:36.756000010Z', 7)).toBe('2026-11-24T02:12:36.756000100Z');
    expect(ceilInstant('2026-12-31T23:59:59.999999500Z', 6)).toBe('2027-01-01T00:00:00.000000000Z');
  });

  it('stops at the last instant of year 9999 instead of writing year 10000, which neither engine takes', () => {
    expect(ceilInstant('9999-12-31T23:59:59.999999500Z', 6)).toBe('9999-12-31T23:59:59.999999000Z');
    expect(ceilInstant('9999-12-31T23:59:59.999999950Z', 7)).toBe('9999-12-31T23:59:59.999999900Z');
  });
});

describe('PostgresDialect error classes', () => {
  const failed = (code: string, message = code) => new QueryFailedError('SELECT 1', [], Object.assign(new Error(message), { code }));

  it('treats a statement cancelled by the statement timeout (57014) or a lock timeout (55P03) as timed out, not as a lost connection', () => {
    expect(dialect.isTimedOut(failed('57014', 'canceling statement due to statement timeout'))).toBe(true);
    expect(dialect.isTimedOut(failed('55P03', 'canceling statement due to lock timeout'))).toBe(true);
    expect(dialect.isConnectionFailure(failed('57014'))).toBe(false);
    expect(dialect.isTimedOut(failed('40P01'))).toBe(false);
    expect(dialect.isTimedOut(failed('23505'))).toBe(false);
  });

  it("treats pg's own read timeout (a server that stopped answering) as a lost connection", () => {
    expect(dialect.isConnectionFailure(new Error('Query read timeout'))).toBe(true);
    expect(dialect.isConnectionFailure(new QueryFailedError('SELECT 1', [], new Error('Query read timeout')))).toBe(true);
    expect(dialect.isConnectionFailure(new Error('Query read timeout in the name of a column'))).toBe(false);
  });
});
