/**
 * A LIKE pattern "contains `search`" with the wildcards of the input escaped, so a `%`, `_` or `[`
 * typed by a user matches itself. Use it through containsAny, which lowercases it in SQL.
 */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_[]/g, (c) => `\\${c}`)}%`;
}

/**
 * The WHERE condition "column contains :pattern, case-insensitively" over several columns of one
 * alias (PostgreSQL and SQL Server alike). Both sides are lowercased by the database: lowercased in
 * JavaScript the pattern disagreed with the database's LOWER() (a `C`-ctype database lowercases
 * only ASCII, so `Ñandú` never matched itself; JavaScript writes a final sigma, PostgreSQL not).
 */
export function containsAny(columns: readonly string[], parameter = 'pattern'): string {
  return `(${columns.map((c) => `LOWER(${c}) LIKE LOWER(:${parameter}) ESCAPE '\\'`).join(' OR ')})`;
}
