import { describe, expect, it } from '@jest/globals';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('masks every form of password a connection URL can carry, and nothing else', () => {
    expect(redactUrl('postgres://svc:Secreto1@db:5432/medios')).toBe('postgres://svc:***@db:5432/medios');
    expect(redactUrl('postgres://:Secreto1@db/medios')).toBe('postgres://:***@db/medios');
    expect(redactUrl('postgresql://postgres@127.0.0.1:5432/db?sslmode=require&password=Secreto1')).toBe(
      'postgresql://postgres@127.0.0.1:5432/db?sslmode=require&password=***',
    );
    expect(redactUrl('mssql://sa:Secreto1@h:1433/db;Pwd=Secreto2')).toBe('mssql://sa:***@h:1433/db;Pwd=***');
    expect(redactUrl('postgres://svc@db:5432/medios?sslmode=require')).toBe('postgres://svc@db:5432/medios?sslmode=require');
    // a password holding an unencoded / or @ is masked whole
    expect(redactUrl('postgres://u:S3cret/PW@db.internal:5432/medios')).toBe('postgres://u:***@db.internal:5432/medios');
    expect(redactUrl('postgres://postgres:Se@cretTail99@127.0.0.1:5432/db')).toBe('postgres://postgres:***@127.0.0.1:5432/db');
    expect(redactUrl('postgres://u:a/b@c@h/db?sslmode=require')).toBe('postgres://u:***@h/db?sslmode=require');
  });
});
