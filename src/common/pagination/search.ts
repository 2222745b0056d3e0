/**
 * A case-insensitive LIKE pattern "contains `search`" with the wildcards of the input escaped;
 * use with `LIKE :pattern ESCAPE '\'` on LOWER(column) (PostgreSQL and SQL Server alike), so a
 * `%`, `_` or `[` typed by a user matches itself.
 */
export function containsPattern(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_[]/g, (c) => `\\${c}`)}%`;
}

/** The WHERE condition "LOWER(column) contains :pattern" over several columns of one alias. */
export function containsAny(columns: readonly string[], parameter = 'pattern'): string {
  return `(${columns.map((c) => `LOWER(${c}) LIKE :${parameter} ESCAPE '\\'`).join(' OR ')})`;
}
