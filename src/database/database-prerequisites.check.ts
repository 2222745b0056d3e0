import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SQL_DIALECT, type SqlDialect } from './dialects/index.js';

/**
 * At start, one warning per database setting the service relies on that is not as it needs it
 * (`SqlDialect.prerequisiteProblems`; on SQL Server, READ_COMMITTED_SNAPSHOT). A warning, not a
 * refusal: such a database still serves, and an operator fixes it without a new release.
 */
@Injectable()
export class DatabasePrerequisitesCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('Database');

  constructor(
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const problem of await this.dialect.prerequisiteProblems(this.dataSource)) this.logger.warn(problem);
  }
}
