import { describe, expect, it } from '@jest/globals';
import { VersionConflictError } from './etag.interceptor.js';
import { VersionedWrites } from './versioned-writes.js';

describe('VersionedWrites.assertUnchangedSinceCheck', () => {
  const writes = (checked: { table: string; column: string; version: number; stale: boolean } | undefined) =>
    new VersionedWrites(
      { tx: { connection: { getMetadata: () => ({ tableName: 'roles' }) } } } as never,
      { isActive: () => true, get: () => checked } as never,
    );
  const role = class Role {};

  it('answers 412 when the locked row moved past the version the If-Match was checked against, stale or not', () => {
    for (const stale of [false, true]) {
      expect(() =>
        writes({ table: 'roles', column: 'permisos_version', version: 3, stale }).assertUnchangedSinceCheck(role, 'permisos_version', 4),
      ).toThrow(VersionConflictError);
    }
  });

  it('lets the change go on when the version is the one checked, when no If-Match was sent, or when it was about another row or version', () => {
    expect(() =>
      writes({ table: 'roles', column: 'permisos_version', version: 3, stale: false }).assertUnchangedSinceCheck(role, 'permisos_version', 3),
    ).not.toThrow();
    expect(() =>
      writes({ table: 'roles', column: 'permisos_version', version: 3, stale: true }).assertUnchangedSinceCheck(role, 'permisos_version', 3),
    ).not.toThrow();
    expect(() => writes(undefined).assertUnchangedSinceCheck(role, 'permisos_version', 4)).not.toThrow();
    expect(() =>
      writes({ table: 'roles', column: 'version', version: 3, stale: false }).assertUnchangedSinceCheck(role, 'permisos_version', 4),
    ).not.toThrow();
    expect(() =>
      writes({ table: 'users', column: 'permisos_version', version: 3, stale: false }).assertUnchangedSinceCheck(role, 'permisos_version', 4),
    ).not.toThrow();
  });
});
