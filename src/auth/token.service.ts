import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { acceptableHeader, joseHeaderOf } from './jose-header.js';
import { JwtKeys } from './jwt-keys.js';

export interface AccessTokenSubject {
  userId: number;
  username: string;
  rol: string;
  /** the session (refresh-token family) the token belongs to: claim `sid` */
  sessionId: string;
}

/** Claims of a verified access token (docs/api.md "Authentication and tokens"). */
export interface AccessTokenClaims {
  sub: string;
  name: string;
  rol: string;
  iss: string;
  aud: string | string[];
  iat: number;
  exp: number;
  jti: string;
  sid: string;
}

const POSITIVE_INT = /^[1-9]\d{0,9}$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Parses the `sid` claim: a UUID string, answered in lower case (the form both engines hand back),
 * else undefined. Checked before it reaches SQL, where a malformed uuid would be an error, not a
 * refusal.
 */
export function sessionIdFromSid(sid: unknown): string | undefined {
  return typeof sid === 'string' && UUID.test(sid) ? sid.toLowerCase() : undefined;
}

/** Parses the `sub` claim: a decimal string holding a positive 32-bit integer, else undefined. */
export function userIdFromSub(sub: unknown): number | undefined {
  if (typeof sub !== 'string' || !POSITIVE_INT.test(sub)) return undefined;
  const id = Number(sub);
  return id <= 2_147_483_647 ? id : undefined;
}

/** Issues and verifies RS256 access tokens (algorithm pinned, `kid` header, iss/aud checked). */
@Injectable()
export class TokenService {
  constructor(
    private readonly jwt: JwtService,
    private readonly keys: JwtKeys,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get accessTtlSeconds(): number {
    return this.config.jwt.accessTtlSeconds;
  }

  signAccessToken(subject: AccessTokenSubject): string {
    return this.jwt.sign(
      { name: subject.username, rol: subject.rol, sid: subject.sessionId },
      {
        algorithm: 'RS256',
        privateKey: this.keys.privateKey,
        keyid: this.keys.kid,
        subject: String(subject.userId),
        issuer: this.config.jwt.issuer,
        audience: this.config.jwt.audience,
        expiresIn: this.config.jwt.accessTtlSeconds,
        jwtid: randomUUID(),
      },
    );
  }

  /**
   * The `sub` a token presents, read without verifying it, when it is a well-formed user id; else
   * null. Only for the record of a refused refresh: it names whom the token claims to be.
   */
  presentedSub(token: string): string | null {
    try {
      const claims: unknown = this.jwt.decode(token);
      const id = claims && typeof claims === 'object' ? userIdFromSub((claims as { sub?: unknown }).sub) : undefined;
      return id === undefined ? null : String(id);
    } catch {
      return null;
    }
  }

  /**
   * Verifies signature, algorithm, kid (and no `crit`), issuer, audience and (unless ignored) expiry; `exp` must
   * be present either way. Returns undefined for any invalid token.
   */
  verifyAccessToken(token: string, options: { ignoreExpiration?: boolean } = {}): AccessTokenClaims | undefined {
    try {
      const header = joseHeaderOf(token);
      if (!acceptableHeader(header, this.keys.kid) || header?.alg !== 'RS256') return undefined;
      const claims = this.jwt.verify<AccessTokenClaims>(token, {
        algorithms: ['RS256'],
        // a KeyObject, which jsonwebtoken accepts (Nest's typings only name string | Buffer)
        publicKey: this.keys.publicKey as unknown as Buffer,
        issuer: this.config.jwt.issuer,
        audience: this.config.jwt.audience,
        ignoreExpiration: options.ignoreExpiration ?? false,
      });
      if (typeof claims.exp !== 'number' || userIdFromSub(claims.sub) === undefined) return undefined;
      return claims;
    } catch {
      return undefined;
    }
  }
}
