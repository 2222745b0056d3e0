import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { onlyOn, placeholders, sqlFor, TestDatabase, testEngine } from '../support/test-database.js';

/** The pieces of the test harness that make one suite run on PostgreSQL and on SQL Server. */
describe('test harness on either engine', () => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await TestDatabase.create();
  });
  afterAll(async () => {
    await d.close();
  });

  it('writes $n placeholders as @n-1 for SQL Server and leaves them for PostgreSQL', () => {
    expect(placeholders('mssql', 'a = $1 AND b = $2 OR c IN ($10, $11)')).toBe('a = @0 AND b = @1 OR c IN (@9, @10)');
    expect(placeholders('postgres', 'a = $1 AND b = $10')).toBe('a = $1 AND b = $10');
  });

  it('runs a query with $n placeholders on a freshly migrated database of its own', async () => {
    const [row] = await d.query('SELECT COUNT(*) AS n FROM roles WHERE codigo = $1 OR codigo = $2', ['admin', 'auditor']);
    expect(Number(row.n)).toBe(2);
    expect(d.name).toMatch(new RegExp(`^${process.env.TEST_RUN_ID}_`));
  });

  it('picks the statement variant of this run’s engine', async () => {
    const sql = sqlFor({ postgres: 'SELECT current_database() AS name', mssql: 'SELECT DB_NAME() AS name' });
    expect(sql).toContain(testEngine() === 'mssql' ? 'DB_NAME()' : 'current_database()');
    expect((await d.query(sql))[0].name).toBe(d.name);
  });

  it('runs an engine-specific test as a plain test on its engine and only marks it on the other', () => {
    expect(onlyOn(testEngine(), 'probe')).toBe(it);
    expect(onlyOn(testEngine() === 'mssql' ? 'postgres' : 'mssql', 'probe')).not.toBe(it);
  });

  it('makes inserts into a table fail at the database until restored', async () => {
    const insert = () =>
      d.query('INSERT INTO audit_events (actor_user_id, action, target_type, target_id) VALUES ($1, $2, $3, $4)', [1, 'probe', 'probe', 'x']);
    const restore = await d.makeInsertsFail('audit_events', "audit store's probe failure");
    try {
      await expect(insert()).rejects.toThrow(/audit store's probe failure/);
    } finally {
      await restore();
    }
    await insert();
    expect(await d.query('SELECT id FROM audit_events WHERE action = $1', ['probe'])).toHaveLength(1);
  });
});
