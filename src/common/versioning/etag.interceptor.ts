import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClsService } from 'nestjs-cls';
import { from, mergeMap, type Observable, type ObservableInput, switchMap } from 'rxjs';
import type { RequestStore } from '../context/request-context.js';
import { DomainError } from '../errors/domain-error.js';
import { etagOf, parseIfMatch, rowVersionOf } from './etag.js';
import { VERSIONED, type VersionedMetadata, type VersionedResource } from './versioned.decorator.js';

/** The 412 of a change whose `If-Match` names a representation that is no longer current. */
export class VersionConflictError extends DomainError {
  constructor() {
    super('version_obsoleta', 'El recurso cambió desde que se leyó: vuelva a leerlo (GET) y repita el cambio con el ETag nuevo en If-Match');
  }
}

/** Fastify route config key under which a versioned read carries its `@Versioned` metadata (bindRouteInterceptors). */
export const VERSIONED_READ = 'versionedRead';

/**
 * The one implementation of ETag / If-Match, for every route marked `@Versioned` (see
 * versioned.decorator.ts). Its two entry points share the tagging below:
 *
 * - On a create or a change (a mutating route) it is an interceptor, registered after
 *   RequestTransactionInterceptor, so it reads inside the request's transaction. Before a change
 *   that carries `If-Match`: reads the row's `version` first and then the current representation
 *   (the same read the GET answers), and records in the request context the version and whether
 *   the tag was theirs. The 412 comes at the write (VersionedWrites), so the operation's own
 *   refusals come first — a refused escalation is a 403 recorded as such whatever its If-Match —
 *   and the change's UPDATE compares the version in its WHERE: a change committed in between —
 *   another request holding the same ETag — makes that UPDATE match no row, 412, and the
 *   transaction rolls back, so nothing changes and nothing is audited. A handler that ends without
 *   writing (an idempotent deactivate of a row already inactive) is settled after it: 412 unless
 *   the tag was theirs and the row still has that version, so of two concurrent changes holding
 *   one ETag exactly one succeeds. Reading the version before the representation keeps this sound:
 *   a representation newer than the version read yields a tag nobody holds.
 * - On a single-resource read (a GET, which runs no transaction) it is a fastify preSerialization
 *   hook (`tagRead`, registered by createApp), so the read runs none of Nest's rxjs interceptor
 *   pipeline, which cost a quarter of the bytes the hot read allocated.
 *
 * After the handler: the answer's `ETag` is computed from its body and the row's version as the
 * request now sees it (a bodiless answer, a role's DELETE, gets the tag of the resource as its GET
 * would answer it).
 */
@Injectable()
export class ETagInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const meta = this.reflector.get<VersionedMetadata | undefined>(VERSIONED, context.getHandler());
    if (!meta) return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { resource } = meta;
    const pathKey = keyInPath(resource, request);
    const answer = (body: unknown): ObservableInput<unknown> => {
      const tagged = this.tag(resource, pathKey, body, reply);
      return tagged ? tagged.then(() => body) : [body];
    };
    if (meta.kind === 'change' && pathKey !== undefined) {
      return from(this.checkPrecondition(resource, pathKey, request)).pipe(
        switchMap(() => next.handle()),
        mergeMap((body) => this.settlePrecondition(resource, pathKey).then(() => body)),
        mergeMap(answer),
      );
    }
    return next.handle().pipe(mergeMap(answer));
  }

  /**
   * The preSerialization hook of the versioned reads: tags the answer of a route whose config
   * carries its `@Versioned` metadata; every other answer passes untouched.
   */
  tagRead(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void): void {
    const meta = (request.routeOptions.config as { [VERSIONED_READ]?: VersionedMetadata } | undefined)?.[VERSIONED_READ];
    const tagged = meta ? this.tag(meta.resource, keyInPath(meta.resource, request), payload, reply) : undefined;
    if (!tagged) return done(null, payload);
    tagged.then(
      () => done(null, payload),
      (err: Error) => done(err),
    );
  }

  /**
   * Sets the answer's `ETag`: at once when the body carries the row version its read fetched (the
   * hot reads and creates), else after reading the version (the returned promise). Nothing for an
   * error answer or one that names no row.
   */
  private tag(resource: VersionedResource, pathKey: unknown, body: unknown, reply: FastifyReply): Promise<void> | undefined {
    if (reply.statusCode >= 300) return undefined;
    // a create has no key in its path: its answer names the new row
    const key = pathKey ?? (body as Record<string, unknown> | undefined)?.[resource.column];
    if (key === undefined) return undefined;
    const version = rowVersionOf(body);
    if (version === undefined) return this.tagFromStore(resource, key, body, reply);
    reply.header('etag', etagOf(version, body));
    return undefined;
  }

  /** Tags an answer whose version is not attached: a bodiless one gets its resource's current representation. */
  private async tagFromStore(resource: VersionedResource, key: unknown, body: unknown, reply: FastifyReply): Promise<void> {
    const representation = body ?? (await this.read(resource, key));
    const version = rowVersionOf(representation) ?? (await this.version(resource, key));
    if (version !== undefined) reply.header('etag', etagOf(version, representation));
  }

  private async checkPrecondition(resource: VersionedResource, key: unknown, request: FastifyRequest): Promise<void> {
    const ifMatch = parseIfMatch(request.headers['if-match']);
    if (!ifMatch) return;
    const version = await this.version(resource, key);
    // a missing resource is the handler's 404; `*` asks only that it exist
    if (version === undefined || ifMatch.any) return;
    const current = etagOf(version, await this.read(resource, key));
    this.cls.set('ifMatchVersion', { table: resource.table, column: versionColumnOf(resource), version, stale: !ifMatch.tags.includes(current) });
  }

  /**
   * After a change's handler: an If-Match no write compared (the handler changed nothing) still
   * answers 412 when it named another representation or the row's version moved since the check.
   */
  private async settlePrecondition(resource: VersionedResource, key: unknown): Promise<void> {
    const expected = this.cls.get('ifMatchVersion');
    if (!expected) return;
    this.cls.set('ifMatchVersion', undefined);
    if (expected.stale || (await this.version(resource, key)) !== expected.version) throw new VersionConflictError();
  }

  private async version(resource: VersionedResource, key: unknown): Promise<number | undefined> {
    const row = await this.txHost.tx
      .createQueryBuilder()
      .select(`t.${versionColumnOf(resource)}`, 'version')
      .from(resource.table, 't')
      .where(`t.${resource.column} = :key`, { key })
      .getRawOne<{ version: number | string }>();
    return row ? Number(row.version) : undefined;
  }

  private read(resource: VersionedResource, key: unknown): Promise<object> {
    return resource.read(this.moduleRef.get(resource.service, { strict: false }), key);
  }
}

/** The column that holds the version the resource's tag and If-Match compare. */
export function versionColumnOf(resource: VersionedResource): string {
  return resource.versionColumn ?? 'version';
}

/** The resource's key from the route's path parameter; undefined on a create (no key in its path). */
function keyInPath(resource: VersionedResource, request: FastifyRequest): unknown {
  const raw = (request.params as Record<string, string | undefined> | undefined)?.[resource.param];
  return raw === undefined ? undefined : resource.parse(raw);
}
