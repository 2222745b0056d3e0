import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/decorators/require-permission.decorator.js';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { AuditEventsService } from './audit-events.service.js';
import { AuditEventsPageDto } from './dto/audit-event.dto.js';
import { AuditEventsQueryDto } from './dto/audit-events-query.dto.js';
import { PERMISSIONS } from '../auth/permissions.js';

@ApiTags('audit')
@Controller('api/v1/audit')
export class AuditEventsController {
  constructor(private readonly events: AuditEventsService) {}

  @Get('events')
  @RequirePermission(PERMISSIONS.auditoria.ver)
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: 'Audit events',
    description:
      'Newest first by `occurredAt`, then `id`. Filters combine with AND; `from` and `to` are inclusive. ' +
      "Keyset pagination: pass the answer's `nextCursor` as `cursor` until it is null; every event committed before the first page " +
      'is visited exactly once, also when many share one timestamp (for a complete export while events are written, end `to` a minute in the past). A malformed or altered cursor is ignored (the query starts from the newest event). ' +
      '400 for `limit` outside 1..100 or not an integer, an unparsable timestamp or id, or `from` later than `to`.',
  })
  @ApiOkResponse({ type: AuditEventsPageDto })
  @ApiErrors(400)
  list(@Query() query: AuditEventsQueryDto): Promise<AuditEventsPageDto> {
    return this.events.list(query);
  }
}
