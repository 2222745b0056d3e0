import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { NoRequestTransaction } from '../common/transactions/request-transaction.interceptor.js';
import { AuthService } from './auth.service.js';
import { type AuthenticatedUser, CurrentUser } from './decorators/current-user.decorator.js';
import { Public } from './decorators/public.decorator.js';
import { Authenticated } from './decorators/require-permission.decorator.js';
import { LoginDto, LoginResponseDto, MeDto } from './dto/login.dto.js';

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @NoRequestTransaction()
  @ApiOperation({
    summary: 'Sign in',
    description: 'Public. One generic 401 `credenciales_invalidas` for unknown user, inactive user and wrong password. Repeated failures per username or client IP answer 429 `demasiados_intentos` with `Retry-After`.',
  })
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiErrors(400, [401, 'Invalid credentials (`credenciales_invalidas`).'], 429)
  login(@Body() dto: LoginDto): Promise<LoginResponseDto> {
    return this.auth.login(dto);
  }

  @Post('logout')
  @Authenticated()
  @HttpCode(204)
  @NoRequestTransaction()
  @ApiOperation({ summary: 'Sign out', description: 'Revokes every active refresh token of the caller. Idempotent. Needs a valid access token.' })
  @ApiNoContentResponse({ description: 'Signed out.' })
  @ApiErrors(401)
  async logout(@CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.auth.logout(user.userId);
  }

  @Get('me')
  @Authenticated()
  @ApiOperation({ summary: 'The caller', description: 'Needs a valid access token.' })
  @ApiOkResponse({ type: MeDto })
  @ApiErrors(401)
  me(@CurrentUser() user: AuthenticatedUser): Promise<MeDto> {
    return this.auth.me(user.userId);
  }
}
