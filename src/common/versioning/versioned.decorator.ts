import { applyDecorators, SetMetadata, type Type } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { parseId } from '../validation/fields.js';

/**
 * A resource whose changes accept `If-Match`: where its row version lives and how to read the
 * representation its single-resource GET answers (whose digest is the ETag).
 */
// `parse` and `read` are declared as methods so a resource of a concrete service and key type is
// also a `VersionedResource` (unknown service and key) where the interceptor handles any of them.
export interface VersionedResource<S = unknown, K = unknown> {
  /** the table with the version column the change's UPDATE compares */
  table: string;
  /**
   * that column: `version` (the row's, moved by every write of the row) unless the resource is a
   * set the row carries with a version of its own (`permisos_version`: a user's overrides, a role's
   * permission set), so a write of the row that leaves the set alone does not outdate its tag
   */
  versionColumn?: string;
  /** the key column of that table, and the route parameter that carries it */
  column: string;
  param: string;
  /** the key from the raw path segment; undefined when malformed (the route's own pipe answers 400) */
  parse(raw: string): K | undefined;
  /** the service whose `read` gives the current representation */
  service: Type<S>;
  read(service: S, key: K): Promise<object>;
}

export const VERSIONED = 'versioned';
/** The OpenAPI mark the document builder turns into the ETag / If-Match / 412 declarations (swagger.ts). */
export const VERSIONED_EXTENSION = 'x-versioned';

export interface VersionedMetadata {
  resource: VersionedResource;
  kind: 'read' | 'change';
}

/**
 * Lost-update protection of a route of `resource`, one decorator for the behaviour and its
 * documentation (the interceptor is common/versioning/etag.interceptor.ts):
 * - on a single-resource read or a create (`@Versioned(R)`): the answer carries the strong `ETag`
 *   of its body and row version;
 * - on a change of an existing resource (`@Versioned(R, 'change')`): `If-Match` is compared with
 *   the current ETag before the handler runs, and a mismatch answers 412 `version_obsoleta` at the
 *   change's write, after the operation's own refusals, with nothing changed; the row version it
 *   matched is compared again in the change's UPDATE (VersionedWrites), and the answer carries the
 *   new `ETag`.
 * The document declares the `ETag` response header, the `If-Match` parameter and the 412 answer.
 */
export function Versioned(resource: VersionedResource, kind: 'read' | 'change' = 'read'): MethodDecorator {
  return applyDecorators(SetMetadata(VERSIONED, { resource, kind } satisfies VersionedMetadata), ApiExtension(VERSIONED_EXTENSION, kind));
}

/** A resource addressed by a numeric `{id}` whose row lives in `table`. */
export function byId<S>(
  table: string,
  service: Type<S>,
  read: (service: S, id: number) => Promise<object>,
  versionColumn?: string,
): VersionedResource<S, number> {
  return { table, versionColumn, column: 'id', param: 'id', parse: parseId, service, read };
}
