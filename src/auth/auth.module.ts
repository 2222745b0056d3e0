import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { UserEntity } from '../users/user.entity.js';
import { AccessGuard } from './access.guard.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { DelegationPolicy } from './delegation.policy.js';
import { EffectivePermissionsService } from './effective-permissions.service.js';
import { JwksController } from './jwks.controller.js';
import { JwtKeys } from './jwt-keys.js';
import { JwtStrategy } from './jwt.strategy.js';
import { VerifiedTokens } from './verified-tokens.js';
import { PasswordHasher } from './password-hasher.js';
import { RefreshTokenEntity } from './refresh-token.entity.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import { SessionEntity } from './session.entity.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsService } from './sessions.service.js';
import { LoginFailureEntity } from './throttle/login-failure.entity.js';
import { LoginThrottleService } from './throttle/login-throttle.service.js';
import { TokenService } from './token.service.js';

/** Sign-in, tokens and the global deny-by-default guard. Global: every domain relies on it. */
@Global()
@Module({
  imports: [PassportModule, JwtModule.register({}), TypeOrmModule.forFeature([UserEntity, RefreshTokenEntity, SessionEntity, LoginFailureEntity])],
  controllers: [AuthController, SessionsController, JwksController],
  providers: [
    { provide: JwtKeys, inject: [APP_CONFIG], useFactory: (config: AppConfig) => JwtKeys.load(config) },
    TokenService,
    JwtStrategy,
    VerifiedTokens,
    PasswordHasher,
    RefreshTokensService,
    LoginThrottleService,
    EffectivePermissionsService,
    AuthService,
    DelegationPolicy,
    SessionsService,
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [
    PasswordHasher,
    RefreshTokensService,
    SessionsService,
    EffectivePermissionsService,
    TokenService,
    JwtKeys,
    DelegationPolicy,
    LoginThrottleService,
  ],
})
export class AuthModule {}
