import { createPrivateKey, createPublicKey } from 'node:crypto';
import { int, pem, readSettings, type ReadContext, text, type ValuesOf } from './settings.js';

/** Tokens, sign-in limits and password hashing. */
export const AUTH_SETTINGS = {
  /** password of the bootstrap user `admin` (only when the users table is empty); unset: random, printed once */
  adminPassword: text('ADMIN_PASSWORD'),
  jwt: {
    /** RS256 key pair; unset: generated into DATA_DIR (not in production) */
    privateKeyPem: pem('JWT_PRIVATE_KEY'),
    publicKeyPem: pem('JWT_PUBLIC_KEY'),
    issuer: text('JWT_ISSUER', { default: 'medios-admin-api' }),
    audience: text('JWT_AUDIENCE', { default: 'medios-admin' }),
    accessTtlSeconds: int('JWT_ACCESS_TTL_SECONDS', { min: 30, max: 86400, unit: 'seconds', default: 900 }),
  },
  refreshTokenDays: int('REFRESH_TOKEN_DAYS', { min: 1, max: 365, unit: 'days', default: 7 }),
  login: {
    /** failures per (existing username, client IP) */
    maxFailuresPerUser: int('LOGIN_MAX_FAILURES_PER_USER', { min: 1, max: 10000, default: 10 }),
    /** failures per existing username, from any IP */
    maxFailuresPerUserGlobal: int('LOGIN_MAX_FAILURES_PER_USER_GLOBAL', { min: 1, max: 100000, default: 100 }),
    maxFailuresPerIp: int('LOGIN_MAX_FAILURES_PER_IP', { min: 1, max: 100000, default: 50 }),
    windowSeconds: int('LOGIN_WINDOW_SECONDS', { min: 1, max: 86400, unit: 'seconds', default: 900 }),
  },
  bcryptRounds: int('BCRYPT_ROUNDS', { min: 4, max: 15, default: 12 }),
  /** password operations (bcrypt hash or compare, strength check) that may wait for their turn; beyond, 503 */
  passwordQueueMax: int('PASSWORD_QUEUE_MAX', { min: 1, max: 10000, default: 64 }),
};

export type AuthConfig = ValuesOf<typeof AUTH_SETTINGS>;

export function authConfig(ctx: ReadContext): AuthConfig {
  const config = readSettings(AUTH_SETTINGS, ctx);
  const { privateKeyPem, publicKeyPem } = config.jwt;
  if (ctx.nodeEnv === 'production' && (!privateKeyPem || !publicKeyPem))
    ctx.problems.push(
      'JWT_PRIVATE_KEY and JWT_PUBLIC_KEY (PEM, or JWT_PRIVATE_KEY_FILE / JWT_PUBLIC_KEY_FILE) are required when NODE_ENV=production',
    );
  if (Boolean(privateKeyPem) !== Boolean(publicKeyPem))
    ctx.problems.push('JWT_PRIVATE_KEY and JWT_PUBLIC_KEY must be given together (PEM, RS256, 2048 bits or more)');
  if (privateKeyPem && publicKeyPem) checkRsaKeyPair(ctx, privateKeyPem, publicKeyPem);
  return config;
}

function checkRsaKeyPair(ctx: ReadContext, privatePem: string, publicPem: string): void {
  try {
    const priv = createPrivateKey(privatePem);
    const pub = createPublicKey(publicPem);
    if (priv.asymmetricKeyType !== 'rsa' || pub.asymmetricKeyType !== 'rsa') {
      ctx.problems.push('JWT_PRIVATE_KEY / JWT_PUBLIC_KEY must be RSA keys (RS256)');
      return;
    }
    if ((priv.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) ctx.problems.push('JWT_PRIVATE_KEY must be an RSA key of 2048 bits or more');
    const derived = createPublicKey(priv).export({ format: 'jwk' });
    const given = pub.export({ format: 'jwk' });
    if (derived.n !== given.n) ctx.problems.push('JWT_PUBLIC_KEY does not match JWT_PRIVATE_KEY');
  } catch {
    ctx.problems.push('JWT_PRIVATE_KEY / JWT_PUBLIC_KEY must be PEM-encoded RSA keys (placeholders are refused)');
  }
}
