import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { ADMIN_PASSWORD, onlyOn } from '../support/test-app.js';
import { makeInsertsFail } from '../support/test-database.js';
import {
  type Answer,
  LOG_DIR,
  adminLogin,
  call,
  ensureBuilt,
  leakedSecrets,
  scratchDatabase,
  startServer,
  type RunningServer,
} from './support/built-server.js';
import { recordFigures } from './support/figures.js';
import { uid } from './support/reliability-app.js';

/**
 * Secrets never leak: the built server at LOG_LEVEL=debug, driven through every operation that
 * handles a secret — sign-in (right, wrong and unknown), user creation, refresh and reuse, password
 * reset (the temporary password), change of the own password, sign-out, secrets in a query string,
 * in malformed and refused bodies, and a failed (fail-closed) write — then every captured log line,
 * every audit and security event (metadata included) and every table are searched for each
 * password and token value used.
 */
describe('secrets never leak into logs, audit metadata, security-event metadata or any table', () => {
  let main: string;
  let db: { url: string; owner: DataSource; drop: () => Promise<void> };
  let server: RunningServer | undefined;

  beforeAll(async () => {
    main = ensureBuilt();
    db = await scratchDatabase('secrets');
  }, 240_000);
  afterAll(async () => {
    await server?.kill();
    await db?.drop();
  });

  onlyOn('postgres', 'dumps every table with PostgreSQL SQL')(
    'finds no password, temporary password, refresh token or access token value anywhere',
    async () => {
      server = await startServer(main, db.url, 'secrets');
      const port = server.port;
      const secrets: Array<[string, string]> = [['the bootstrap admin password', ADMIN_PASSWORD]];
      const keep = (what: string, value: unknown) => {
        if (typeof value === 'string' && value) secrets.push([what, value]);
      };
      const expectStatus = (a: Answer, status: number, what: string) => {
        if (a.status !== status) throw new Error(`${what}: expected ${status}, got ${a.status} ${JSON.stringify(a.body)}`);
        return a.body;
      };

      const admin = await adminLogin(port);
      keep('the admin access token', admin.accessToken);
      keep('the admin refresh token', admin.refreshToken);
      const token = admin.accessToken;

      const username = `sec_${uid().toLowerCase()}`;
      const firstPassword = `Primera-${uid()}-clave`;
      keep('a new user password', firstPassword);
      const user = expectStatus(
        await call(port, 'POST', '/api/v1/users', {
          token,
          body: { username, password: firstPassword, nombre: 'S', apellido: 'S', email: `${username}@example.test`, rol: 'cajero' },
        }),
        201,
        'create user',
      );

      const login1 = expectStatus(await call(port, 'POST', '/api/v1/auth/login', { body: { username, password: firstPassword } }), 200, 'login');
      keep('an access token', login1.accessToken);
      keep('a refresh token', login1.refreshToken);
      const rotated = expectStatus(
        await call(port, 'POST', '/api/v1/auth/refresh', { body: { accessToken: login1.accessToken, refreshToken: login1.refreshToken } }),
        200,
        'refresh',
      );
      keep('a rotated access token', rotated.accessToken);
      keep('a rotated refresh token', rotated.refreshToken);
      expectStatus(
        await call(port, 'POST', '/api/v1/auth/refresh', { body: { accessToken: login1.accessToken, refreshToken: login1.refreshToken } }),
        401,
        'reuse',
      );

      const reset = expectStatus(await call(port, 'POST', `/api/v1/users/${user.id}/password-reset`, { token }), 200, 'password reset');
      keep('a temporary password', reset.temporaryPassword);
      const login2 = expectStatus(
        await call(port, 'POST', '/api/v1/auth/login', { body: { username, password: reset.temporaryPassword } }),
        200,
        'login with the temporary password',
      );
      keep('an access token', login2.accessToken);
      keep('a refresh token', login2.refreshToken);
      const newPassword = `Nueva-${uid()}-clave`;
      keep('a changed password', newPassword);
      expectStatus(
        await call(port, 'PUT', '/api/v1/users/me/password', {
          token: login2.accessToken,
          body: { currentPassword: reset.temporaryPassword, newPassword },
        }),
        204,
        'own password change',
      );
      const wrongCurrent = `Equivocada-${uid()}-x`;
      keep('a wrong current password', wrongCurrent);
      await call(port, 'PUT', '/api/v1/users/me/password', {
        token: login2.accessToken,
        body: { currentPassword: wrongCurrent, newPassword: `Otra-${uid()}-clave` },
      });

      const wrong = `Incorrecta-${uid()}-x`;
      keep('a wrong password', wrong);
      expectStatus(await call(port, 'POST', '/api/v1/auth/login', { body: { username, password: wrong } }), 401, 'wrong password');
      const unknownUserPassword = `Desconocido-${uid()}-x`;
      keep('the password of an unknown user', unknownUserPassword);
      expectStatus(
        await call(port, 'POST', '/api/v1/auth/login', { body: { username: `nadie_${uid()}`, password: unknownUserPassword } }),
        401,
        'unknown user',
      );
      const weak = `weakweakweak${uid().toLowerCase()}`;
      keep('a refused weak password', weak);
      await call(port, 'POST', '/api/v1/users', {
        token,
        body: { username: `w_${uid().toLowerCase()}`, password: weak, nombre: 'W', apellido: 'W', email: 'w@example.test', rol: 'cajero' },
      });
      const inQuery = `EnLaUrl-${uid()}-secreto`;
      keep('a password in a query string', inQuery);
      await call(port, 'GET', `/api/v1/auth/me?password=${inQuery}&token=${login2.accessToken}`);
      const malformed = `Malformado-${uid()}-x`;
      keep('a password in a malformed body', malformed);
      await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"username":"admin","password":"${malformed}"`,
      });
      const extraField = `Extra-${uid()}-x`;
      keep('a password in an unknown body field', extraField);
      await call(port, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD, token: extraField } });

      // user creates that fail at the database, each with a password in its body, logged as faults:
      // fail-closed (the audit store down), and the user insert itself, whose statement's values
      // (the bcrypt hash among them) stay out of the error line
      for (const store of ['audit_events', 'users']) {
        const failedPassword = `Fallida-${store}-${uid()}-x`;
        keep(`the password of a create that failed (${store} down)`, failedPassword);
        const restore = await makeInsertsFail(db.owner, 'postgres', store, `secret scan: ${store} store down`);
        try {
          const failed = await call(port, 'POST', '/api/v1/users', {
            token,
            body: {
              username: `f_${uid().toLowerCase()}`,
              password: failedPassword,
              nombre: 'F',
              apellido: 'F',
              email: 'f@example.test',
              rol: 'cajero',
            },
          });
          expect(failed.status).toBe(500);
        } finally {
          await restore();
        }
      }
      // the password change ended login2's session: sign in again with the new password to sign out
      const login3 = expectStatus(
        await call(port, 'POST', '/api/v1/auth/login', { body: { username, password: newPassword } }),
        200,
        'login with the changed password',
      );
      keep('an access token of a later session', login3.accessToken);
      keep('a refresh token of a later session', login3.refreshToken);
      expectStatus(await call(port, 'POST', '/api/v1/auth/logout', { token: login3.accessToken }), 204, 'logout');
      await server.kill(); // flushes nothing more: everything written so far is in the capture

      const logs = server.output();
      const auditRows: Array<{ row: string; metadata: string | null }> = await db.owner.query(
        'SELECT e::text AS row, e.metadata::text AS metadata FROM audit_events e',
      );
      const securityRows: Array<{ row: string; metadata: string | null }> = await db.owner.query(
        'SELECT e::text AS row, e.metadata::text AS metadata FROM security_events e',
      );
      const tables: Array<{ name: string }> = await db.owner.query(
        `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema()`,
      );
      let everyTable = '';
      for (const { name } of tables)
        everyTable += (await db.owner.query(`SELECT coalesce(string_agg(t::text, E'\\n'), '') AS dump FROM ${name} t`))[0].dump;

      const found = {
        logs: leakedSecrets(logs, secrets),
        auditEvents: leakedSecrets(auditRows.map((r) => r.row).join('\n'), secrets),
        securityEvents: leakedSecrets(securityRows.map((r) => r.row).join('\n'), secrets),
        anyTable: leakedSecrets(everyTable, secrets),
      };
      recordFigures(
        'secrets',
        `secrets: ${secrets.length} secret values searched in ${logs.split('\n').length} log lines, ${auditRows.length} audit and ${securityRows.length} security events and ${tables.length} tables: ${Object.values(found).flat().length} found`,
        {
          secretValues: secrets.length,
          kinds: [...new Set(secrets.map(([what]) => what))],
          logLines: logs.split('\n').length,
          logLevel: 'debug',
          auditEvents: auditRows.length,
          auditEventsWithMetadata: auditRows.filter((r) => r.metadata !== null).length,
          securityEvents: securityRows.length,
          tablesSearched: tables.length,
          found,
          logs: LOG_DIR,
        },
      );
      // the scan is not blind: the logs have the requests, the trails have the events
      expect(logs).toContain('/api/v1/auth/login');
      expect(auditRows.some((r) => r.row.includes('usuario.password_reset'))).toBe(true);
      expect(securityRows.some((r) => r.row.includes('refresh.reuse_detected'))).toBe(true);
      expect(logs).toContain('secret scan: users store down');
      expect(logs).not.toMatch(/\$2[aby]\$\d\d\$/);
      expect(found).toEqual({ logs: [], auditEvents: [], securityEvents: [], anyTable: [] });
    },
  );
});
