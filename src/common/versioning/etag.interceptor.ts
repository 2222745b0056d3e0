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

/**
 * The one implementation of ETag / If-Match, for every route marked `@Versioned` (see
 * versioned.decorator.ts). Registered after RequestTransactionInterceptor, so on a change it
 * reads inside the request's transaction.
 *
 * Before a change that carries `If-Match`: reads the row's `version` first and then the current
 * representation (the same read the GET answers); a tag other than theirs is 412 before the
 * handler runs, so nothing changes and nothing is audited. A match records the version in the
 * request context, and the change's UPDATE compares it in its WHERE (VersionedWrites): a change
 * committed in between — another request holding the same ETag — makes that UPDATE match no
 * row, 412, and the transaction rolls back. Reading the version before the representation keeps
 * this sound: a representation newer than the version read yields a tag nobody holds.
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
    const raw = (request.params as Record<string, string | undefined>)[resource.param];
    // a create has no key in its path: its answer names the new row
    const pathKey = raw === undefined ? undefined : resource.parse(raw);

    const answer = (body: unknown): ObservableInput<unknown> => {
      if (reply.statusCode >= 300) return [body];
      const key = pathKey ?? (body as Record<string, unknown> | undefined)?.[resource.column];
      if (key === undefined) return [body];
      // the hot reads and creates attach the version they fetched: tagged without a round trip
      const version = rowVersionOf(body);
      if (version === undefined) return this.tagFromStore(resource, key, body, reply);
      reply.header('etag', etagOf(version, body));
      return [body];
    };
    if (meta.kind === 'change' && pathKey !== undefined) {
      return from(this.checkPrecondition(resource, pathKey, request)).pipe(
        switchMap(() => next.handle()),
        mergeMap(answer),
      );
    }
    return next.handle().pipe(mergeMap(answer));
  }

  /** Tags an answer whose version is not attached: a bodiless one gets its resource's current representation. */
  private async tagFromStore(resource: VersionedResource, key: unknown, body: unknown, reply: FastifyReply): Promise<unknown> {
    const representation = body ?? (await this.read(resource, key));
    const version = rowVersionOf(representation) ?? (await this.version(resource, key));
    if (version !== undefined) reply.header('etag', etagOf(version, representation));
    return body;
  }

  private async checkPrecondition(resource: VersionedResource, key: unknown, request: FastifyRequest): Promise<void> {
    const ifMatch = parseIfMatch(request.headers['if-match']);
    if (!ifMatch) return;
    const version = await this.version(resource, key);
    // a missing resource is the handler's 404; `*` asks only that it exist
    if (version === undefined || ifMatch.any) return;
    const current = etagOf(version, await this.read(resource, key));
    if (!ifMatch.tags.includes(current)) throw new VersionConflictError();
    this.cls.set('ifMatchVersion', { table: resource.table, version });
  }

  private async version(resource: VersionedResource, key: unknown): Promise<number | undefined> {
    const row = await this.txHost.tx
      .createQueryBuilder()
      .select('t.version', 'version')
      .from(resource.table, 't')
      .where(`t.${resource.column} = :key`, { key })
      .getRawOne<{ version: number | string }>();
    return row ? Number(row.version) : undefined;
  }

  private read(resource: VersionedResource, key: unknown): Promise<object> {
    return resource.read(this.moduleRef.get(resource.service, { strict: false }), key);
  }
}
