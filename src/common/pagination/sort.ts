import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, registerDecorator } from 'class-validator';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/**
 * `sort` of the paged lists: comma-separated field names from the list's whitelist, each one
 * ascending or, with a leading `-`, descending (`sort=-createdAt,username`). Every list declares
 * its whitelist once (the DTO decorator below validates and documents it) and orders its query
 * with applySort, which only ever writes whitelisted entity properties into ORDER BY and ends
 * with the id, so pages never overlap or skip rows when values tie.
 */

export type SortDirection = 'ASC' | 'DESC';

export interface SortKey {
  field: string;
  direction: SortDirection;
}

const SORT_SYNTAX = /^-?[A-Za-z][A-Za-z0-9]*(,-?[A-Za-z][A-Za-z0-9]*)*$/;
const MAX_SORT_LENGTH = 200;

/** The keys of a `sort` value, or a message saying what is wrong with it. */
export function parseSort(raw: string, whitelist: readonly string[]): SortKey[] | { error: string } {
  const allowed = `admite ${whitelist.join(', ')} (con - delante para orden descendente), separados por coma`;
  if (raw.length > MAX_SORT_LENGTH || !SORT_SYNTAX.test(raw)) return { error: `sort no es válido: ${allowed}` };
  const keys = raw
    .split(',')
    .map((part): SortKey => (part.startsWith('-') ? { field: part.slice(1), direction: 'DESC' } : { field: part, direction: 'ASC' }));
  const unknown = keys.filter((k) => !whitelist.includes(k.field)).map((k) => k.field);
  if (unknown.length) return { error: `sort no admite ${unknown.join(', ')}: ${allowed}` };
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k.field)) return { error: `sort repite ${k.field}` };
    seen.add(k.field);
  }
  return keys;
}

/**
 * The `sort` query parameter of a paged list: validated against `whitelist` (400 `validacion`
 * naming the unknown field) and documented with it in OpenAPI.
 */
export function SortQuery(whitelist: readonly string[], defaultOrder: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: String,
      description:
        `Order of the page: comma-separated fields from ${whitelist.map((f) => `\`${f}\``).join(', ')}; a leading \`-\` sorts that field descending. ` +
        `Ties are broken by id. Default: ${defaultOrder}. An unknown field is 400 \`validacion\`.`,
      example: `-${whitelist[whitelist.length - 1]},${whitelist[0]}`,
      pattern: SORT_SYNTAX.source,
      maxLength: MAX_SORT_LENGTH,
    }),
    IsOptional(),
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name: 'isSort',
        target: target.constructor,
        propertyName: String(propertyName),
        validator: {
          validate: (value: unknown) => typeof value === 'string' && !('error' in parseSort(value, whitelist)),
          defaultMessage: (args) => {
            const value: unknown = args?.value;
            if (typeof value !== 'string') return 'sort debe ser un texto';
            const parsed = parseSort(value, whitelist);
            return 'error' in parsed ? parsed.error : 'sort no es válido';
          },
        },
      }),
  );
}

/**
 * Orders `qb` (main alias `alias`) by `sort` when given, otherwise by `defaultOrder`, then by id.
 * Only properties of `whitelist` reach the query, and as the entity's own column (never text of
 * the request). A nullable column sorts its nulls last in either direction on every engine
 * (PostgreSQL and SQL Server disagree on where NULL goes otherwise).
 */
export function applySort<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  sort: string | undefined,
  whitelist: readonly string[],
  defaultOrder: readonly SortKey[],
): SelectQueryBuilder<T> {
  let keys = defaultOrder;
  if (sort !== undefined) {
    const parsed = parseSort(sort, whitelist);
    // the DTO has already refused a bad value; this keeps a caller that skipped it safe too
    if ('error' in parsed) throw new Error(`applySort: ${parsed.error}`);
    keys = parsed;
  }
  const metadata = qb.expressionMap.mainAlias?.metadata;
  if (!metadata) throw new Error('applySort: the query has no main entity');
  qb.orderBy();
  for (const { field, direction } of keys) {
    const column = metadata.findColumnWithPropertyName(field);
    if (!column) throw new Error(`applySort: ${metadata.name} has no property ${field}`);
    if (column.isNullable) {
      qb.addOrderBy(`CASE WHEN ${qb.escape(alias)}.${qb.escape(column.databaseName)} IS NULL THEN 1 ELSE 0 END`, 'ASC');
    }
    qb.addOrderBy(`${alias}.${field}`, direction);
  }
  if (!keys.some((k) => k.field === 'id')) qb.addOrderBy(`${alias}.id`, 'ASC');
  return qb;
}
