import { beforeAll, describe, expect, it } from '@jest/globals';
import { stripComments } from '../support/mssql-ddl.js';
import { captureMssqlStatements, type SentStatement } from '../support/mssql-statements.js';
import { maskForTsqlGrammar, TSQL_MASKS } from '../support/tsql-gate.js';

/**
 * The masks of the T-SQL static gate (scripts/tsql-gate.ts, run by .ci/run with Debian's
 * sqlfluff) hide only the constructs its grammar does not know. These tests keep the list short
 * and honest: every mask is needed by a statement actually sent, none cuts into a string literal,
 * and a masked statement keeps the syntax errors around the construct for the grammar to find.
 */
describe('T-SQL static gate masks', () => {
  let statements: SentStatement[];
  beforeAll(async () => {
    statements = await captureMssqlStatements();
  });

  it('captures the migrations (up and down) and every statement of the dialect', () => {
    const sources = new Set(statements.map((s) => s.source));
    for (const m of ['Platform1763712000000', 'AppendOnly1763712600000', 'CodeCollation1763713100000']) {
      expect(sources).toContain(`${m}.up`);
      expect(sources).toContain(`${m}.down`);
    }
    for (const method of [
      'ensureMonthlyPartitions',
      'transactionLock',
      'selectAsOf',
      'auditEventsPage',
      'tryJobLock',
      'dropPartitionsOlderThan',
      'createDatabase',
    ]) {
      expect(sources).toContain(`MssqlDialect.${method}`);
    }
  });

  it.each(TSQL_MASKS.map((m) => [m.name, m] as const))('needs the mask "%s" for a statement actually sent', (_name, mask) => {
    // outside comments and string literals, where the masks apply
    const used = statements.filter((s) =>
      new RegExp(mask.pattern.source, mask.pattern.flags).test(stripComments(s.sql).replace(/N?'(?:[^']|'')*'/g, "''")),
    );
    expect(used.length).toBeGreaterThan(0);
  });

  it('masks the unknown constructs and keeps everything else of the statement', () => {
    expect(
      maskForTsqlGrammar(`CREATE TABLE dbo.t (
  id int NOT NULL,
  valid_from datetime2(7) GENERATED ALWAYS AS ROW START HIDDEN NOT NULL,
  valid_to datetime2(7) GENERATED ALWAYS AS ROW END HIDDEN NOT NULL,
  PERIOD FOR SYSTEM_TIME (valid_from, valid_to)
) WITH (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.t_history, HISTORY_RETENTION_PERIOD = 10 YEARS));`).replace(/\s+/g, ' '),
    ).toBe(
      'CREATE TABLE dbo.t ( id int NOT NULL, valid_from datetime2(7) GENERATED ALWAYS AS ROW START HIDDEN NOT NULL, valid_to datetime2(7) GENERATED ALWAYS AS ROW END HIDDEN NOT NULL ) ;',
    );
    expect(maskForTsqlGrammar('IF @x = 1 ALTER PARTITION FUNCTION pf() SPLIT RANGE (@b);')).toBe(
      "IF @x = 1 PRINT N'masked: partition function or scheme';",
    );
    expect(maskForTsqlGrammar('CREATE OR ALTER PROCEDURE dbo.p @a int WITH EXECUTE AS OWNER AS BEGIN SELECT @a; END')).toBe(
      'CREATE OR ALTER PROCEDURE dbo.p @a int  AS BEGIN SELECT @a; END',
    );
  });

  it('never masks inside a string literal (dynamic SQL stays data)', () => {
    const sql = "SET @sql = N'ALTER DATABASE x SET y; CREATE CERTIFICATE c ENCRYPTION BY PASSWORD = ' + QUOTENAME(@pw, '''') + N';';";
    expect(maskForTsqlGrammar(sql)).toBe(sql);
  });

  it('leaves a syntax error next to a masked construct for the grammar to find', () => {
    // the missing parenthesis survives masking: sqlfluff then rejects the statement
    expect(maskForTsqlGrammar('CREATE TABLE dbo.t (id int NOT NULL, CHECK (id > 0) WITH (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.h));')).toBe(
      'CREATE TABLE dbo.t (id int NOT NULL, CHECK (id > 0) ;',
    );
    // a masked statement must fit on one line: the continuation is left for the grammar to reject
    expect(maskForTsqlGrammar('ALTER DATABASE [x] SET\n  READ_COMMITTED_SNAPSHOT ON;')).toBe(
      "PRINT N'masked: database option'\n  READ_COMMITTED_SNAPSHOT ON;",
    );
  });
});
