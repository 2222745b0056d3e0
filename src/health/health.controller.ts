import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/decorators/public.decorator.js';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
  ) {}

  @Get('live')
  @Public()
  @ApiOperation({ summary: 'Liveness probe', description: 'Public. 200 whenever the process serves requests.' })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' } } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness probe', description: 'Public. 200 when the database answers, 503 otherwise (@nestjs/terminus body).' })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer.' })
  ready() {
    return this.health.check([() => this.db.pingCheck('database', { timeout: 3000 })]);
  }
}
