import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { from, lastValueFrom, type Observable } from 'rxjs';

export const NO_REQUEST_TRANSACTION = 'noRequestTransaction';

/**
 * Opts a mutating route out of the per-request transaction: its service manages transactions
 * itself (login and refresh must keep security effects although the request fails).
 */
export const NoRequestTransaction = () => SetMetadata(NO_REQUEST_TRANSACTION, true);

/**
 * One database transaction per mutating request, carried in CLS. Repositories reach the database
 * through the TransactionHost, so the change and its audit row commit or roll back together:
 * any error — an audit insert that fails included — leaves nothing behind (fail-closed).
 * Bound to every mutating route by bindRouteInterceptors (route-interceptors.ts).
 */
@Injectable()
export class RequestTransactionInterceptor implements NestInterceptor {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return from(this.txHost.withTransaction(() => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
