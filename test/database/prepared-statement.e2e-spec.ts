import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dialectFor } from '../../src/database/dialects/index.js';
import { PreparedStatement } from '../../src/database/prepared-statement.js';
import { TestDatabase, onlyOn } from '../support/test-database.js';

/** The statements of the hot paths (BENCHMARKS.md): written once, run with new values each time. */
describe('PreparedStatement on either engine', () => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await TestDatabase.create();
  });
  afterAll(async () => {
    await d.close();
  });

  it('runs a :named statement many times with new values, a repeated name included', async () => {
    const stmt = new PreparedStatement<{ codigo: string }>(
      'SELECT codigo FROM roles WHERE codigo = :a OR (codigo = :b AND codigo <> :a) ORDER BY codigo',
    );
    expect(await stmt.run(d.db, { a: 'admin', b: 'auditor' })).toEqual([{ codigo: 'admin' }, { codigo: 'auditor' }]);
    expect(await stmt.run(d.db, { b: 'cajero', a: 'consulta' })).toEqual([{ codigo: 'cajero' }, { codigo: 'consulta' }]);
    expect(await stmt.one(d.db, { a: 'nadie', b: 'nadie' })).toBeUndefined();
  });

  it('refuses to run without a value for every parameter, as a rejected promise (never a synchronous throw)', async () => {
    for (const stmt of [
      new PreparedStatement('SELECT codigo FROM roles WHERE codigo = :codigo'),
      new PreparedStatement('SELECT codigo FROM roles WHERE codigo = :codigo', { name: 'test_missing_value' }),
    ]) {
      let answer: Promise<unknown> | undefined;
      expect(() => (answer = stmt.one(d.db, {}))).not.toThrow();
      await expect(answer).rejects.toThrow('no value for :codigo');
    }
  });

  it("inserts with the dialect's statement and answers the new row (RETURNING / OUTPUT INSERTED)", async () => {
    const dialect = dialectFor(d.engine);
    const insert = new PreparedStatement<{ id: number; codigo: string; activo: boolean }>(
      dialect.insertStatement('medios', ['codigo', 'nombre', 'activo', 'created_at', 'updated_at'], ['id', 'codigo', 'activo']),
    );
    const at = new Date('2026-01-02T03:04:05.678Z');
    const first = await insert.one(d.db, { codigo: 'PREP_1', nombre: 'Uno', activo: true, created_at: at, updated_at: at });
    const second = await insert.one(d.db, { codigo: 'PREP_2', nombre: 'Dos', activo: false, created_at: at, updated_at: at });
    expect(first).toEqual({ id: expect.any(Number), codigo: 'PREP_1', activo: true });
    expect(second).toEqual({ id: expect.any(Number), codigo: 'PREP_2', activo: false });
    const [row] = await d.query('SELECT nombre, created_at FROM medios WHERE id = $1', [second?.id]);
    expect(row.nombre).toBe('Dos');
    expect(new Date(row.created_at).toISOString()).toBe(at.toISOString());
    // without returning columns the insert answers nothing to read back
    const plain = new PreparedStatement(dialect.insertStatement('medios', ['codigo', 'nombre', 'activo', 'created_at', 'updated_at']));
    await plain.run(d.db, { codigo: 'PREP_3', nombre: 'Tres', activo: true, created_at: at, updated_at: at });
    expect(Number((await d.query('SELECT COUNT(*) AS n FROM medios WHERE codigo LIKE $1', ['PREP_%']))[0].n)).toBe(3);
  });

  it('keeps names out of SQL that are not plain identifiers', () => {
    expect(() => dialectFor(d.engine).insertStatement('medios; DROP TABLE x', ['codigo'])).toThrow('not a plain SQL identifier');
    expect(() => dialectFor(d.engine).insertStatement('medios', ['codigo', 'a b'])).toThrow('not a plain SQL identifier');
  });

  onlyOn('postgres', 'named statements are a PostgreSQL protocol feature; SQL Server reuses the plan of the parameterized text')(
    'sends a named statement as one PostgreSQL prepares on the connection (it sees itself in pg_prepared_statements)',
    async () => {
      const text = 'SELECT name FROM pg_prepared_statements WHERE name = :name';
      const named = new PreparedStatement<{ name: string }>(text, { name: 'prepared_statement_probe' });
      expect(await named.run(d.db, { name: 'prepared_statement_probe' })).toEqual([{ name: 'prepared_statement_probe' }]);
      expect(await named.run(d.db, { name: 'prepared_statement_probe' })).toEqual([{ name: 'prepared_statement_probe' }]);
      // the control: without a name nothing is prepared under that name
      expect(await new PreparedStatement(text).run(d.db, { name: 'prepared_statement_unnamed' })).toEqual([]);
    },
  );

  it("answers the dialect's jsonArrayContains condition on the stored permission overrides", async () => {
    const dialect = dialectFor(d.engine);
    const stmt = new PreparedStatement<{ n: number }>(
      `SELECT COUNT(*) AS n FROM users u WHERE u.username = :username AND ${dialect.jsonArrayContains('u.permission_overrides', 'denied', ':code')}`,
    );
    await d.query(
      `INSERT INTO users (username, password_hash, nombre, apellido, email, role_id, activo, must_change_password, permission_overrides)
       SELECT 'json_probe', 'x', 'J', 'P', 'json_probe@example.test', id, $1, $2, $3 FROM roles WHERE codigo = 'cajero'`,
      [true, false, JSON.stringify({ granted: ['a:b:c'], denied: ['x:y:z'] })],
    );
    expect(Number((await stmt.one(d.db, { username: 'json_probe', code: 'x:y:z' }))?.n)).toBe(1);
    expect(Number((await stmt.one(d.db, { username: 'json_probe', code: 'a:b:c' }))?.n)).toBe(0);
    expect(Number((await stmt.one(d.db, { username: 'json_probe', code: 'x:y' }))?.n)).toBe(0);
  });
});
