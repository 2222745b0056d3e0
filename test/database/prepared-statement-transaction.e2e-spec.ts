import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dialectFor } from '../../src/database/dialects/index.js';
import { PreparedStatement } from '../../src/database/prepared-statement.js';
import { onlyOn, TestDatabase } from '../support/test-database.js';

/**
 * The hot paths' named statements inside a request transaction (the medio insert and its audit
 * row): they must run on the transaction's own connection, or an insert would commit on its own
 * and a rollback would leave it behind.
 */
describe('A named PreparedStatement inside a transaction', () => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await TestDatabase.create();
  });
  afterAll(async () => {
    await d.close();
  });

  const insert = () =>
    new PreparedStatement<{ id: number }>(
      dialectFor(d.engine).insertStatement('medios', ['codigo', 'nombre', 'activo', 'created_at', 'updated_at'], ['id']),
      {
        name: 'tx_probe_insert',
      },
    );
  const count = new PreparedStatement<{ n: number }>('SELECT COUNT(*) AS n FROM medios WHERE codigo = :codigo', { name: 'tx_probe_count' });
  const values = (codigo: string) => ({ codigo, nombre: 'Tx', activo: true, created_at: new Date(), updated_at: new Date() });

  it('is rolled back with the transaction, and seen inside it before that', async () => {
    const stmt = insert();
    await expect(
      d.db.transaction(async (manager) => {
        await stmt.run(manager, values('TX_ROLLED_BACK'));
        expect(Number((await count.one(manager, { codigo: 'TX_ROLLED_BACK' }))?.n)).toBe(1);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(Number((await count.one(d.db, { codigo: 'TX_ROLLED_BACK' }))?.n)).toBe(0);
    expect(Number((await count.one(d.db.manager, { codigo: 'TX_ROLLED_BACK' }))?.n)).toBe(0);
  });

  it('is kept when the transaction commits, and runs again with new values on a later one', async () => {
    const stmt = insert();
    for (const codigo of ['TX_COMMIT_1', 'TX_COMMIT_2']) {
      await d.db.transaction(async (manager) => {
        await stmt.run(manager, values(codigo));
      });
      expect(Number((await count.one(d.db, { codigo }))?.n)).toBe(1);
    }
  });

  onlyOn('postgres', 'named statements are a PostgreSQL protocol feature; SQL Server reuses the plan of the parameterized text')(
    "is prepared on the transaction's connection (it sees itself in that connection's pg_prepared_statements)",
    async () => {
      const probe = new PreparedStatement<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE name = :name', { name: 'tx_probe_self' });
      await d.db.transaction(async (manager) => {
        expect(await probe.run(manager, { name: 'tx_probe_self' })).toEqual([{ name: 'tx_probe_self' }]);
      });
    },
  );
});
