import { Controller, Get, Module, Post } from '@nestjs/common';
import { createHash, createHmac, randomUUID, sign } from 'node:crypto';
import { AuditService } from '../../../src/audit/audit.service.js';
import { type AuthenticatedUser, CurrentUser } from '../../../src/auth/decorators/current-user.decorator.js';
import { Public } from '../../../src/auth/decorators/public.decorator.js';
import { Authenticated, RequirePermission } from '../../../src/auth/decorators/require-permission.decorator.js';
import { JwtKeys } from '../../../src/auth/jwt-keys.js';
import { type HttpResult, TestApp, type TestAppOptions } from '../../support/test-app.js';

/** A permission-guarded route and two audited ones, mounted only in the auth tests' app. */
export const PROBE_PERMISSION = 'administracion:auditoria:ver';
export const PROBE_GUARDED = '/test-probe/guarded';
export const PROBE_AUDITED = '/test-probe/audited';
export const PROBE_AUDITED_ANONYMOUS = '/test-probe/audited-anonymous';

@Controller('test-probe')
class ProbeController {
  constructor(private readonly audit: AuditService) {}

  @Get('guarded')
  @RequirePermission(PROBE_PERMISSION)
  guarded(@CurrentUser() user: AuthenticatedUser): { userId: number } {
    return { userId: user.userId };
  }

  @Post('audited')
  @Authenticated()
  async audited(): Promise<{ ok: true }> {
    await this.audit.record('probe.write', 'probe', 'audited');
    return { ok: true };
  }

  @Post('audited-anonymous')
  @Public()
  async auditedAnonymous(): Promise<{ ok: true }> {
    await this.audit.record('probe.write', 'probe', 'anonymous');
    return { ok: true };
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}

export const sha256b64url = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The parts of a JWT, decoded without any check. */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h ?? '', 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(p ?? '', 'base64url').toString('utf8')),
  };
}

/** A new app and a forge of tokens signed with its key. */
export async function appWithForge(options: TestAppOptions = {}): Promise<{ t: TestApp; forge: TokenForge }> {
  const t = await TestApp.create(options);
  return { t, forge: new TokenForge(t) };
}

/** Builds access tokens by hand (valid ones and every kind of forgery) with the app's own key. */
export class TokenForge {
  readonly keys: JwtKeys;
  constructor(private readonly t: TestApp) {
    this.keys = t.app.get(JwtKeys);
  }

  /**
   * Claims exactly like the service issues them, for a user; `sid` is the session of `token` (an
   * access token the service issued to that user), else a session that does not exist.
   */
  claims(user: { id: number; username: string; rol: string; token?: string }, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return {
      name: user.username,
      rol: user.rol,
      iat: now,
      exp: now + 900,
      aud: this.t.config.jwt.audience,
      iss: this.t.config.jwt.issuer,
      sub: String(user.id),
      jti: randomUUID(),
      sid: user.token ? decodeJwt(user.token).payload.sid : randomUUID(),
      ...overrides,
    };
  }

  /** `header`: extra JOSE header parameters (e.g. `crit`), signed like the rest. */
  rs256(
    payload: Record<string, unknown> | null | unknown[] | string | number,
    options: { kid?: string; privateKeyPem?: string; header?: Record<string, unknown> } = {},
  ): string {
    const data = `${b64({ alg: 'RS256', typ: 'JWT', kid: options.kid ?? this.keys.kid, ...options.header })}.${b64(payload)}`;
    return `${data}.${sign('sha256', Buffer.from(data), options.privateKeyPem ?? this.keys.privateKeyPem).toString('base64url')}`;
  }

  hs256WithPublicKey(payload: Record<string, unknown>): string {
    const data = `${b64({ alg: 'HS256', typ: 'JWT', kid: this.keys.kid })}.${b64(payload)}`;
    return `${data}.${createHmac('sha256', this.keys.publicKeyPem).update(data).digest('base64url')}`;
  }

  unsigned(payload: Record<string, unknown>): string {
    return `${b64({ alg: 'none', typ: 'JWT', kid: this.keys.kid })}.${b64(payload)}.`;
  }

  /** A validly signed token whose payload is then replaced (signature no longer matches). */
  tampered(token: string, changes: Record<string, unknown>): string {
    const [h, p, s] = token.split('.');
    const payload = { ...JSON.parse(Buffer.from(p ?? '', 'base64url').toString('utf8')), ...changes };
    return `${h}.${b64(payload)}.${s}`;
  }
}

/** A problem document without its per-request correlation id, to compare two answers. */
export function withoutCorrelation(res: HttpResult): Record<string, unknown> {
  const { correlationId: _ignored, ...rest } = res.body as Record<string, unknown>;
  return rest;
}

/** Every row of every table of the database, as text, table by table. */
export async function dumpAllTables(t: TestApp): Promise<Map<string, string>> {
  const tables: Array<{ s: string; n: string }> = await t.query(
    `SELECT table_schema AS s, table_name AS n FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema', 'sys')`,
  );
  const quote = (name: string) => (t.engine === 'mssql' ? `[${name.replace(/]/g, ']]')}]` : `"${name.replace(/"/g, '""')}"`);
  const dump = new Map<string, string>();
  for (const { s, n } of tables) dump.set(`${s}.${n}`, JSON.stringify(await t.query(`SELECT * FROM ${quote(s)}.${quote(n)}`)));
  return dump;
}
