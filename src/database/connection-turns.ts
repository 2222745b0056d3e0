import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ClsService } from 'nestjs-cls';
import type { DataSource } from 'typeorm';
import type { TurnClient } from '../common/concurrency/turn-order.js';
import { type RequestStore, requestStore } from '../common/context/request-context.js';
import { SQL_DIALECT, type SqlDialect } from './dialects/index.js';

/**
 * The service's connection pools lend connections in turns by client when all are busy
 * (SqlDialect.serveConnectionsInTurns). A request's client is the user of its access token once
 * the token is verified, else its address; work outside any request (start, jobs) is one client of
 * its own. So a user who keeps every pooled connection busy with slow requests it may make waits
 * behind its own requests, and another user's statement gets the next connection that frees up.
 */
@Injectable()
export class ConnectionTurns implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly primary: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  onModuleInit(): void {
    this.serve(this.primary);
  }

  /** Makes the pool of an initialized DataSource (the primary's, the read replica's) lend in turns. */
  serve(dataSource: DataSource): void {
    this.dialect.serveConnectionsInTurns(dataSource, this.clientOf);
  }

  private readonly clientOf = (): TurnClient => {
    const store = requestStore(this.cls);
    return store?.tokenSubject ?? store?.ip ?? '';
  };
}
