import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { Public } from '../auth/decorators/public.decorator.js';
import { DatabaseHealthIndicator } from './indicators/database.health.js';
import { FreshnessHealthIndicator } from './indicators/freshness.health.js';
import { PartitionsHealthIndicator } from './indicators/partitions.health.js';
import { RetentionHealthIndicator } from './indicators/retention.health.js';
import { VersioningHealthIndicator } from './indicators/versioning.health.js';

const TERMINUS_BODY = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'error', 'shutting_down'], example: 'ok' },
    info: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { status: { type: 'string', example: 'up' } }, additionalProperties: true },
    },
    error: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { status: { type: 'string', example: 'down' } }, additionalProperties: true },
    },
    details: { type: 'object', additionalProperties: { type: 'object', properties: { status: { type: 'string' } }, additionalProperties: true } },
  },
};

/** terminus' own Cache-Control is left off: every probe answer carries the service's `no-store`, as every /health answer does. */
const PROBE = { noCache: false, swaggerDocumentation: true };

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: DatabaseHealthIndicator,
    private readonly versioning: VersioningHealthIndicator,
    private readonly retention: RetentionHealthIndicator,
    private readonly partitions: PartitionsHealthIndicator,
    private readonly freshness: FreshnessHealthIndicator,
  ) {}

  @Get('live')
  @Public()
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness probe', description: 'Public. 200 whenever the process serves requests.' })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' } } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @HealthCheck(PROBE)
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Readiness probe',
    description:
      "Public. 200 when the database answers a ping within 3 s on the probe's own connection, however busy the service's pool is; 503 otherwise (@nestjs/terminus body; the cause is logged, not shown).",
  })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer.' })
  ready() {
    return this.health.check([() => this.db.check()]);
  }

  @Get('audit')
  @Public()
  @HealthCheck(PROBE)
  @ApiOperation({
    operationId: 'getAuditHealth',
    summary: 'Audit storage health',
    description:
      'Public (probes carry no token). 200 when every check is up, 503 otherwise, with the @nestjs/terminus body: ' +
      '`versioning` (system versioning on for users, roles, permissions, role_permissions), `retention` (their history kept 10 years), ' +
      '`partitions_audit_events` and `partitions_security_events` (monthly partitions for the current UTC month and the next 3), ' +
      '`freshness` (newest audit event at most AUDIT_FRESHNESS_HOURS old, default 24; an empty store is fresh). ' +
      'A failing entry names the tables or months at fault.',
  })
  @ApiOkResponse({ description: 'Every check is up.', schema: TERMINUS_BODY })
  @ApiServiceUnavailableResponse({ description: 'At least one check is down; `error` names it.', schema: TERMINUS_BODY })
  audit() {
    return this.health.check([
      () => this.versioning.check(),
      () => this.retention.check(),
      () => this.partitions.check('audit_events'),
      () => this.partitions.check('security_events'),
      () => this.freshness.check(),
    ]);
  }
}
