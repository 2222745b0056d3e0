import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigValidationError, loadAppConfig } from '../../common/config/index.js';
import { generateRsaKeyPair } from '../../auth/jwt-keys.js';
import { AuditSigningKeys } from './audit-signing-keys.js';

const ed25519 = () =>
  generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });

describe('audit signing keys', () => {
  it('refuses a production start without AUDIT_SIGNING_KEY, and a key that is not Ed25519', () => {
    const jwt = generateRsaKeyPair();
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://x@db/medios',
      JWT_PRIVATE_KEY: jwt.privateKeyPem,
      JWT_PUBLIC_KEY: jwt.publicKeyPem,
    };
    expect(() => loadAppConfig(production)).toThrow(/AUDIT_SIGNING_KEY .* is required when NODE_ENV=production/);
    expect(() => loadAppConfig({ ...production, AUDIT_SIGNING_KEY: jwt.privateKeyPem })).toThrow(ConfigValidationError);
    expect(loadAppConfig({ ...production, AUDIT_SIGNING_KEY: ed25519().privateKey }).auditSeal.signingKeyPem).toContain('PRIVATE KEY');
  });

  it('generates a development key into DATA_DIR once and reuses it, with a stable key id', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'audit-keys-'));
    const config = loadAppConfig({ NODE_ENV: 'development', DATA_DIR: dataDir });
    const first = AuditSigningKeys.load(config);
    expect(existsSync(join(dataDir, 'audit-signing-key.pem'))).toBe(true);
    expect(AuditSigningKeys.load(config).keyId).toBe(first.keyId);
    expect(first.keyId).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('keeps verifying seals of the previous key after a rotation, and signs only with the new one', () => {
    const old = ed25519();
    const before = new AuditSigningKeys(
      AuditSigningKeys.load(loadAppConfig({ NODE_ENV: 'development', AUDIT_SIGNING_KEY: old.privateKey })).privateKeyObject,
    );
    const signature = before.sign('seal 1');
    const rotated = AuditSigningKeys.load(
      loadAppConfig({ NODE_ENV: 'development', AUDIT_SIGNING_KEY: ed25519().privateKey, AUDIT_VERIFY_KEYS: old.publicKey }),
    );
    expect(rotated.keyId).not.toBe(before.keyId);
    expect(rotated.verifyKeys.verify(before.keyId, 'seal 1', signature)).toBe(true);
    expect(rotated.verifyKeys.verify(before.keyId, 'seal 2', signature)).toBe(false);
    expect(rotated.verifyKeys.jwks().map((k) => k.kid)).toEqual([rotated.keyId, before.keyId]);
  });
});
