import { Controller, Delete, Get, HttpCode } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { NoRequestTransaction } from '../common/transactions/request-transaction.interceptor.js';
import { type AuthenticatedUser, CurrentUser } from './decorators/current-user.decorator.js';
import { Authenticated } from './decorators/require-permission.decorator.js';
import { ApiSessionList, SesionDto } from './dto/session.dto.js';
import { PathSessionId } from './session-id.pipe.js';
import { SessionsService } from './sessions.service.js';

/** The caller's own sessions: what a "where am I signed in" screen lists and ends. */
@ApiTags('auth')
@Controller('api/v1/auth/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @Authenticated()
  @ApiOperation({
    operationId: 'listOwnSessions',
    summary: 'My active sessions',
    description:
      'Needs a valid access token. The active sessions of the caller (one per sign-in, kept alive by refreshes), most recently used first, at most 100; ' +
      '`current` marks the one of this request’s access token. Ended and expired sessions are not listed.',
  })
  @ApiSessionList()
  list(@CurrentUser() caller: AuthenticatedUser): Promise<SesionDto[]> {
    return this.sessions.listActive(caller.userId, caller.sessionId);
  }

  @Delete(':id')
  @Authenticated()
  @HttpCode(204)
  @NoRequestTransaction()
  @ApiOperation({
    operationId: 'endOwnSession',
    summary: 'End one of my sessions',
    description:
      'Needs a valid access token. Ends one session of the caller — the current one too (signing out of this device only): its refresh tokens ' +
      'are revoked and its access tokens refused from the next request. Ending an already-ended session of the caller answers 204 and changes ' +
      'nothing. 404 when the caller has no session with that id (unknown, or another user’s). Recorded as the security event `logout` ' +
      '(session id = the ended session), not audited, like sign-out.',
  })
  @ApiNoContentResponse({ description: 'Ended (or already ended).' })
  @ApiErrors([400, 'The id is not a UUID (`validacion`).'], [404, 'The caller has no session with that id (`no_encontrado`).'])
  async end(@CurrentUser() caller: AuthenticatedUser, @PathSessionId() id: string): Promise<void> {
    await this.sessions.endOwn(caller.userId, id);
  }
}
