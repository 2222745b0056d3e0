import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClsService } from 'nestjs-cls';
import { from, mergeMap, type Observable, switchMap } from 'rxjs';
import type { RequestStore } from '../context/request-context.js';
import { DomainError } from '../errors/domain-error.js';
import { etagOf, parseIfMatch } from './etag.js';
import { VERSIONED, type VersionedMetadata, type VersionedResource } from './versioned.decorator.js';

/** The 412 of a change whose `If-Match` names a representation that is no longer current. */
export class VersionConflictError extends DomainError {
  constructor() {
    super('version_obsoleta', 'El recurso cambió desde que se leyó: vuelva a leerlo (GET) y repita el cambio con el ETag nuevo en If-Match');
  }
}

/**
 * The one implementation of ETag / If-Match, for every route marked `@Versioned` (see
 * versioned.decorator.ts). Runs inside the request's transaction (it is registered after
 * RequestTransactionInterceptor).
 *
 * Before a change that carries `If-Match`: reads the row's `version` first and then the current
 * representation (the same read the GET answers); a tag that is not the digest of that
 * representation is 412 before the handler runs, so nothing changes and nothing is audited.
 * A match records the version in the request context; the change's UPDATE compares it in its
 * WHERE (VersionedWrites), so a change committed in between — two requests holding the same
 * ETag — makes the later UPDATE match no row: 412 and the transaction rolls back. Reading the
 * version before the representation keeps that sound: a representation newer than the version
 * read can only make the UPDATE fail, never let a stale tag through.
 *
 * After the handler: the answer's `ETag` is the digest of its body (a bodiless answer, such as a
 * role's DELETE, gets the digest of the resource as the GET would now answer it).
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
    const resource = meta.resource;
    const key = resource ? resource.parse(String((request.params as Record<string, string>)[resource.param] ?? '')) : undefined;

    return from(resource && key !== undefined ? this.checkPrecondition(resource, key, request) : Promise.resolve()).pipe(
      switchMap(() => next.handle()),
      mergeMap(async (body: unknown) => {
        if (reply.statusCode >= 300) return body;
        if (body !== null && typeof body === 'object') reply.header('etag', etagOf(body));
        else if (body === undefined && resource && key !== undefined) reply.header('etag', etagOf(await this.read(resource, key)));
        return body;
      }),
    );
  }

  private async checkPrecondition(resource: VersionedResource, key: unknown, request: FastifyRequest): Promise<void> {
    const ifMatch = parseIfMatch(request.headers['if-match']);
    if (!ifMatch) return;
    const row = await this.txHost.tx
      .createQueryBuilder()
      .select('t.version', 'version')
      .from(resource.table, 't')
      .where(`t.${resource.column} = :key`, { key })
      .getRawOne<{ version: number | string }>();
    // a missing resource is the handler's 404
    if (!row) return;
    // `*` asks only that the resource exist
    if (ifMatch.any) return;
    const current = etagOf(await this.read(resource, key));
    if (!ifMatch.tags.includes(current)) throw new VersionConflictError();
    this.cls.set('ifMatchVersion', { table: resource.table, version: Number(row.version) });
  }

  private read(resource: VersionedResource, key: unknown): Promise<object> {
    return resource.read(this.moduleRef.get(resource.service, { strict: false }), key);
  }
}
