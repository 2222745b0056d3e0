import { stripComments } from './mssql-ddl.js';

/**
 * The T-SQL static gate (scripts/tsql-gate.ts, run by .ci/run): every statement the SQL Server
 * migrations and dialect send is parsed by an independent T-SQL grammar, Debian's sqlfluff
 * (`sqlfluff parse`, dialect tsql). Its grammar does not know a few constructs the schema relies
 * on; these, and only these, are masked before parsing — each replaced by something of the same
 * shape that it does parse, so everything around them is still checked. Any other parse error
 * fails CI. What the masks hide is checked by text in test/database/mssql-migrations.spec.ts and,
 * for real, by the SQL Server run of the suite (docs/sqlserver.md).
 *
 * A masked statement must sit on one line (up to its `;` or the end of the line): one split over
 * several lines leaves a tail the grammar rejects, so the gate fails rather than hides it.
 */
export interface Mask {
  name: string;
  pattern: RegExp;
  replacement: string;
}

/** A stand-in statement valid wherever a statement is (alone, after IF, inside BEGIN … END). */
const PLACEHOLDER = (what: string) => `PRINT N'masked: ${what}'`;
const LINE = String.raw`[^;\n]*`;

export const TSQL_MASKS: readonly Mask[] = [
  // temporal tables
  { name: 'PERIOD FOR SYSTEM_TIME column-list item', pattern: /,\s*PERIOD\s+FOR\s+SYSTEM_TIME\s*\([^)]*\)/gi, replacement: '' },
  {
    name: 'WITH (SYSTEM_VERSIONING = ON (…)) table option',
    pattern: /\bWITH\s*\(\s*SYSTEM_VERSIONING\s*=\s*ON\s*\([^)]*\)\s*\)/gi,
    replacement: '',
  },
  {
    name: 'ALTER TABLE … SET (SYSTEM_VERSIONING = …)',
    pattern: new RegExp(String.raw`\bALTER\s+TABLE\s+[\w.\[\]]+\s+SET\s*\(\s*SYSTEM_VERSIONING${LINE}`, 'gi'),
    replacement: PLACEHOLDER('system versioning'),
  },
  { name: 'FOR SYSTEM_TIME AS OF', pattern: /\bFOR\s+SYSTEM_TIME\s+AS\s+OF\s+@\w+/gi, replacement: '' },
  // partition functions and schemes
  {
    name: 'CREATE / ALTER / DROP PARTITION FUNCTION | SCHEME',
    pattern: new RegExp(String.raw`\b(?:CREATE|ALTER|DROP)\s+PARTITION\s+(?:FUNCTION|SCHEME)\b${LINE}`, 'gi'),
    replacement: PLACEHOLDER('partition function or scheme'),
  },
  // principals, certificates and signatures
  {
    name: 'CREATE USER … FOR LOGIN | FROM CERTIFICATE | WITHOUT LOGIN, CREATE LOGIN',
    pattern: new RegExp(String.raw`\b(?:CREATE\s+USER\s+[\w\[\]]+\s+(?:FOR|FROM|WITHOUT)\s|CREATE\s+LOGIN\s)${LINE}`, 'gi'),
    replacement: PLACEHOLDER('login or user'),
  },
  {
    name: 'CREATE / ALTER / DROP CERTIFICATE, ADD / DROP SIGNATURE',
    pattern: new RegExp(String.raw`\b(?:(?:CREATE|ALTER|DROP)\s+CERTIFICATE|(?:ADD|DROP)\s+SIGNATURE)\b${LINE}`, 'gi'),
    replacement: PLACEHOLDER('certificate or signature'),
  },
  {
    name: 'GRANT ALTER ANY DATASPACE (database-scoped permission)',
    pattern: new RegExp(String.raw`\bGRANT\s+ALTER\s+ANY\s+DATASPACE\b${LINE}`, 'gi'),
    replacement: PLACEHOLDER('database permission'),
  },
  // procedures, databases, dynamic SQL
  { name: 'WITH EXECUTE AS OWNER procedure option', pattern: /\bWITH\s+EXECUTE\s+AS\s+OWNER\b/gi, replacement: '' },
  {
    name: 'ALTER DATABASE … SET option',
    pattern: new RegExp(String.raw`\bALTER\s+DATABASE\s+[\w\[\]]+\s+SET\b${LINE}`, 'gi'),
    replacement: PLACEHOLDER('database option'),
  },
  { name: 'EXEC (string literal or expression)', pattern: /\bEXEC(?:UTE)?\s*\((?!\s*@\w+\s*\))[^;\n]*\)/gi, replacement: 'EXEC (@dynamic_sql)' },
];

/**
 * The statement with comments removed and the masks applied outside string literals (a literal
 * is data — dynamic SQL is parsed by the server only when it runs — so masks never cut into one).
 */
export function maskForTsqlGrammar(sql: string, masks: readonly Mask[] = TSQL_MASKS): string {
  const literals: string[] = [];
  let code = stripComments(sql).replace(/N?'(?:[^']|'')*'/g, (literal) => {
    literals.push(literal);
    return `N'\uE000${literals.length - 1}\uE000'`;
  });
  for (const m of masks) code = code.replace(m.pattern, m.replacement);
  return code.replace(/N'\uE000(\d+)\uE000'/g, (_, i: string) => literals[Number(i)]!);
}
