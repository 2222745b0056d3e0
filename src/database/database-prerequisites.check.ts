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
    let problems: string[];
    try {
      problems = await this.dialect.prerequisiteProblems(this.dataSource);
    } catch (err) {
      // a check that only warns does not stop a start either
      this.logger.warn(`could not check the database's settings: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    for (const problem of problems) this.logger.warn(problem);
  }
}
