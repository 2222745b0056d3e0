import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { AcceptedHeaders, bearerTokenOf, claimsMayBeObject } from './jose-header.js';
import { JwtKeys } from './jwt-keys.js';
import { type AccessTokenClaims, sessionIdFromSid, userIdFromSub } from './token.service.js';

/** What the strategy hands the guard once the token itself is valid. */
export interface VerifiedToken {
  userId: number;
  username: string;
  rol: string;
  jti: string;
  /** the `sid` claim: the session the token belongs to */
  sessionId: string;
  /** the `exp` claim, in seconds */
  exp: number;
}

/** passport-jwt: bearer token, RS256 only, published `kid` only, no `crit`, iss/aud checked, `exp` and a UUID `sid` required. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(keys: JwtKeys, @Inject(APP_CONFIG) config: AppConfig) {
    const headers = new AcceptedHeaders(keys.kid);
    super({
      jwtFromRequest: bearerTokenOf,
      secretOrKeyProvider: (_req: unknown, rawJwt: string, done: (err: Error | null, key?: string | Buffer) => void) => {
        if (!headers.accepts(rawJwt)) return done(new Error('unknown kid or critical extension'));
        if (!claimsMayBeObject(rawJwt)) return done(new Error('the claims are not a JSON object'));
        // jsonwebtoken accepts a KeyObject (passport-jwt's typings only name string | Buffer): the
        // key parsed once instead of the PEM text, which it would parse again on every request.
        done(null, keys.publicKey as unknown as Buffer);
      },
      algorithms: ['RS256'],
      issuer: config.jwt.issuer,
      audience: config.jwt.audience,
      ignoreExpiration: false,
    });
  }

  validate(claims: AccessTokenClaims): VerifiedToken | false {
    const userId = userIdFromSub(claims.sub);
    const sessionId = sessionIdFromSid(claims.sid);
    if (userId === undefined || sessionId === undefined || typeof claims.exp !== 'number' || typeof claims.jti !== 'string') return false;
    return { userId, username: String(claims.name ?? ''), rol: String(claims.rol ?? ''), jti: claims.jti, sessionId, exp: claims.exp };
  }
}
