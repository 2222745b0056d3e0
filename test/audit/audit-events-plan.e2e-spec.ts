import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SQL_DIALECT, type SqlDialect } from '../../src/database/dialects/index.js';
import type { AuditPageQuery } from '../../src/database/dialects/sql-dialect.js';
import { engineOf } from '../../src/database/database-url.js';
import { TestApp } from '../support/test-app.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Subplans Removed'?: number;
  'Rows Removed by Filter'?: number;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/**
 * A deep page costs what the first page costs: on PostgreSQL the planner prunes the partitions
 * newer than the cursor, walks the (…, occurred_at DESC, id DESC) indexes of the rest in order
 * (Merge Append) and stops after limit + 1 rows — no Sort of the table. The plan of the dialect's
 * own SQL is asserted through EXPLAIN (ANALYZE, FORMAT JSON). PostgreSQL-only: SQL Server's plan
 * is not read by this suite.
 */
if (engineOf(process.env.TEST_SERVER_URL ?? 'postgres://') === 'postgres') {
  describe('audit events page plan (PostgreSQL)', () => {
    let t: TestApp;
    let dialect: SqlDialect;

    beforeAll(async () => {
      t = await TestApp.create();
      dialect = t.app.get<SqlDialect>(SQL_DIALECT);
      // Partitions back to 3 months ago, and two events every 5 minutes from then until now, over
      // 2 actors × 2 target types × 3 target ids: every filter combination matches thousands of
      // rows, the case where a page must not cost more the deeper it is.
      await t.query(
        `SELECT ensure_monthly_partitions('audit_events', (date_trunc('month', now() AT TIME ZONE 'UTC') - interval '3 months')::date, (now() AT TIME ZONE 'UTC')::date)`,
      );
      await t.query(
        `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id)
         SELECT ts, 1 + (extract(epoch FROM ts)::bigint / 300) % 2, 'plan.seed', CASE WHEN n = 1 THEN 'usuario' ELSE 'rol' END,
                (1 + (extract(epoch FROM ts)::bigint / 600) % 3)::text
           FROM generate_series(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '3 months', now(), interval '5 minutes') AS ts,
                generate_series(1, 2) AS n`,
      );
      await t.query('ANALYZE audit_events');
      [{ total }] = await t.query('SELECT count(*)::int AS total FROM audit_events');
      deep = (
        await t.query(
          `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"000Z"') AS t, id::text AS id
             FROM audit_events
            WHERE occurred_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '2 months' + interval '10 days'
            ORDER BY occurred_at, id LIMIT 1`,
        )
      )[0];
      const ranges = await dialect.partitionRanges(t.db, 'audit_events');
      olderOrSame = ranges.filter((r) => r.from !== null && r.from.toISOString() <= `${deep.t.slice(0, 23)}Z`).map((r) => r.name);
      newer = ranges.filter((r) => !olderOrSame.includes(r.name)).map((r) => r.name);
    });
    afterAll(() => t.close());

    let total: number;
    let deep: { t: string; id: string };
    let olderOrSame: string[];
    let newer: string[];

    async function explain(query: AuditPageQuery): Promise<PlanNode> {
      const { sql, parameters } = dialect.auditEventsPage(query);
      const [row] = await t.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, parameters);
      const plan = typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'];
      return plan[0].Plan as PlanNode;
    }

    const auditScans = (plan: PlanNode) => nodes(plan).filter((n) => n['Relation Name']?.startsWith('audit_events'));

    it('reads a deep page by index from the partitions at or before the cursor only, stopping after limit + 1 rows, with no Sort', async () => {
      expect(total).toBeGreaterThan(50_000);
      expect(olderOrSame.length).toBeGreaterThanOrEqual(2);
      expect(newer.length).toBeGreaterThanOrEqual(5); // last month, this month and 3+ ahead

      const plan = await explain({ after: deep, rows: 51 });
      expect(plan['Node Type']).toBe('Limit');
      expect(plan['Actual Rows']).toBe(51);
      expect(nodes(plan).map((n) => n['Node Type'])).not.toContain('Sort');
      const scans = auditScans(plan);
      expect(scans.length).toBeGreaterThan(0);
      for (const scan of scans) {
        expect(['Index Scan', 'Index Only Scan']).toContain(scan['Node Type']);
        expect(olderOrSame).toContain(scan['Relation Name']); // newer partitions pruned at plan time
        expect(scan['Actual Rows']! * (scan['Actual Loops'] ?? 1)).toBeLessThanOrEqual(51);
      }
      expect(newer.some((name) => scans.some((s) => s['Relation Name'] === name))).toBe(false);
    });

    it('reads the first page by index, stopping after limit + 1 rows, with no Sort', async () => {
      const plan = await explain({ rows: 51 });
      expect(plan['Actual Rows']).toBe(51);
      expect(nodes(plan).map((n) => n['Node Type'])).not.toContain('Sort');
      const scans = auditScans(plan);
      for (const scan of scans) {
        expect(['Index Scan', 'Index Only Scan']).toContain(scan['Node Type']);
        expect(scan['Actual Rows']!).toBeLessThanOrEqual(51);
      }
      expect(scans.reduce((sum, s) => sum + s['Actual Rows']!, 0)).toBeLessThanOrEqual(51 * scans.length);
    });

    const filters = {
      actorUserId: 2,
      targetType: 'rol',
      targetId: '3',
      from: '2000-01-01T00:00:00.000000000Z',
      to: '2999-12-31T00:00:00.000000000Z',
    } as const;
    const combinations = Array.from({ length: 32 }, (_v, mask) =>
      Object.fromEntries(Object.entries(filters).filter((_e, bit) => mask & (1 << bit))),
    ) as Array<Partial<typeof filters>>;

    it.each(combinations.map((combination) => ({ name: Object.keys(combination).join('+') || 'no filter', combination })))(
      'serves a deep page filtered by $name with an ordered index walk that stops early, and no Sort',
      async ({ combination }) => {
        const plan = await explain({ ...combination, after: deep, rows: 51 });
        expect(nodes(plan).map((n) => n['Node Type'])).not.toContain('Sort');
        const scans = auditScans(plan);
        expect(scans.length).toBeGreaterThan(0);
        for (const scan of scans) {
          expect(['Index Scan', 'Index Only Scan']).toContain(scan['Node Type']);
          expect(olderOrSame).toContain(scan['Relation Name']);
          // rows read = rows returned + rows a filter threw away: bounded by the page and the
          // combination's selectivity (1/12 at most here), not by the size of the table
          expect(scan['Actual Rows']! * (scan['Actual Loops'] ?? 1) + (scan['Rows Removed by Filter'] ?? 0)).toBeLessThanOrEqual(51 * 12);
          // and each equality filter is a condition of the index itself
          for (const column of ['actorUserId', 'targetType', 'targetId'].filter((f) => f in combination)) {
            expect(scan['Index Cond']).toContain(
              { actorUserId: 'actor_user_id =', targetType: 'target_type)::text =', targetId: 'target_id)::text =' }[column],
            );
          }
        }
      },
    );
  });
}
