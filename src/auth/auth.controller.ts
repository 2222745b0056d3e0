import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { NoRequestTransaction } from '../common/transactions/request-transaction.interceptor.js';
import { AuthService } from './auth.service.js';
import { AllowEndedSession } from './decorators/allow-ended-session.decorator.js';
import { type AuthenticatedUser, CurrentUser } from './decorators/current-user.decorator.js';
import { Public } from './decorators/public.decorator.js';
import { Authenticated } from './decorators/require-permission.decorator.js';
import { LoginDto, LoginResponseDto, MeDto } from './dto/login.dto.js';
import { RefreshDto, TokenPairDto } from './dto/refresh.dto.js';

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @NoRequestTransaction()
  @ApiOperation({
    operationId: 'login',
    summary: 'Sign in',
    description: [
      'Public. The password is used exactly as sent (no trimming); over 72 bytes (UTF-8) is 400.',
      'One generic 401 `credenciales_invalidas` for unknown user, inactive user and wrong password.',
      'After `LOGIN_MAX_FAILURES_PER_USER` failures for one username from one client IP (default 10), `LOGIN_MAX_FAILURES_PER_USER_GLOBAL`',
      'for one username from any IP (default 100) or `LOGIN_MAX_FAILURES_PER_IP` for one client IP (default 50) within `LOGIN_WINDOW_SECONDS`',
      '(default 900), sign-in answers 429 `demasiados_intentos` with `Retry-After` (seconds) without checking the password;',
      'a success clears the count of that username from that IP only. Malformed requests (400) do not count.',
    ].join(' '),
  })
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiErrors(
    400,
    [401, 'Invalid credentials (`credenciales_invalidas`).'],
    [429, 'Too many failures (`demasiados_intentos`); the `Retry-After` header says how many seconds to wait.'],
    [503, 'The password queue is full (`servicio_no_disponible`); `Retry-After` says when to retry. Such a refusal does not count as a failure.'],
  )
  login(@Body() dto: LoginDto): Promise<LoginResponseDto> {
    return this.auth.login(dto);
  }

  @Post('refresh')
  @Public()
  @HttpCode(200)
  @NoRequestTransaction()
  @ApiOperation({
    operationId: 'refreshTokens',
    summary: 'Renew the session (refresh-token rotation)',
    description: [
      'Public. Takes the last access token (it may have expired: its signature, issuer, audience and key id are still checked)',
      'and the current refresh token, and answers a new pair. The presented refresh token is revoked (rotated) and valid once:',
      'presenting it again — or any revoked token — revokes the whole session (every token of its chain). Every refusal is the',
      'same generic 401 `refresh_invalido` (unknown, revoked, expired, another user’s, inactive user). A client with several tabs',
      'must serialize its refreshes.',
    ].join(' '),
  })
  @ApiOkResponse({ type: TokenPairDto })
  @ApiErrors([400, 'A field is missing or not a string (`validacion`).'], [401, 'The session cannot be renewed (`refresh_invalido`).'])
  refresh(@Body() dto: RefreshDto): Promise<TokenPairDto> {
    return this.auth.refresh(dto);
  }

  @Post('logout')
  @Authenticated()
  @AllowEndedSession()
  @HttpCode(204)
  @NoRequestTransaction()
  @ApiOperation({
    operationId: 'logout',
    summary: 'Sign out everywhere',
    description: [
      'Ends every session of the caller (revokes all its refresh tokens): its access tokens are refused from the next request.',
      'Idempotent: repeating it with the same access token answers 204 — the one route that accepts a token whose session has',
      'ended, by a sign-out — and then changes nothing (sessions opened since stay open). A token whose session ended otherwise',
      '(revoked, password changed, user updated…) is 401 `no_autenticado`, as on every route. Needs an otherwise valid access',
      'token of an active user.',
      'To end one session only, `DELETE /api/v1/auth/sessions/{id}`.',
    ].join(' '),
  })
  @ApiNoContentResponse({ description: 'Signed out.' })
  async logout(@CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.auth.logout(user);
  }

  @Get('me')
  @Authenticated()
  @ApiOperation({ operationId: 'getCurrentUser', summary: 'The caller', description: 'Needs a valid access token.' })
  @ApiOkResponse({ type: MeDto })
  me(@CurrentUser() user: AuthenticatedUser): Promise<MeDto> {
    return this.auth.me(user.userId);
  }
}
