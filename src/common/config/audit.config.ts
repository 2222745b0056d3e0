import { createPrivateKey, createPublicKey } from 'node:crypto';
import { int, list, pem, readSettings, type ReadContext, type ValuesOf } from './settings.js';

/** The audit trail: metadata sanitizing, the health check's freshness, and the seals. */
export const AUDIT_SETTINGS = {
  /** extra metadata keys to strip, added to the defaults */
  auditSanitizeKeys: list('AUDIT_SANITIZE_KEYS', /^[A-Za-z0-9_\-, ]*$/, 'AUDIT_SANITIZE_KEYS must be a comma-separated list of key names'),
  auditFreshnessHours: int('AUDIT_FRESHNESS_HOURS', { min: 1, max: 8760, unit: 'hours', default: 24 }),
  auditSeal: {
    /** Ed25519 private key (PEM) that signs the seals; unset: generated into DATA_DIR (not in production) */
    signingKeyPem: pem('AUDIT_SIGNING_KEY'),
    /** older public keys (PEM blocks) that still verify seals signed before a rotation */
    verifyKeysPem: pem('AUDIT_VERIFY_KEYS'),
    /** how often the audit-seal job runs */
    minutes: int('AUDIT_SEAL_MINUTES', { min: 1, max: 1440, unit: 'minutes', default: 5 }),
  },
};

export type AuditConfig = ValuesOf<typeof AUDIT_SETTINGS>;

export function auditConfig(ctx: ReadContext): AuditConfig {
  const config = readSettings(AUDIT_SETTINGS, ctx);
  const { signingKeyPem, verifyKeysPem } = config.auditSeal;
  if (ctx.nodeEnv === 'production' && !signingKeyPem)
    ctx.problems.push('AUDIT_SIGNING_KEY (PEM, Ed25519, or AUDIT_SIGNING_KEY_FILE) is required when NODE_ENV=production');
  if (signingKeyPem) checkEd25519PrivateKey(ctx, signingKeyPem);
  if (verifyKeysPem) checkEd25519PublicKeys(ctx, verifyKeysPem);
  return config;
}

function checkEd25519PrivateKey(ctx: ReadContext, pemText: string): void {
  try {
    if (createPrivateKey(pemText).asymmetricKeyType !== 'ed25519') ctx.problems.push('AUDIT_SIGNING_KEY must be an Ed25519 private key (PEM)');
  } catch {
    ctx.problems.push('AUDIT_SIGNING_KEY must be a PEM-encoded Ed25519 private key (placeholders are refused)');
  }
}

function checkEd25519PublicKeys(ctx: ReadContext, pemText: string): void {
  const blocks = pemText.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
  if (!blocks.length) ctx.problems.push('AUDIT_VERIFY_KEYS must hold PEM-encoded Ed25519 public keys');
  for (const block of blocks) {
    try {
      if (createPublicKey(block).asymmetricKeyType !== 'ed25519') ctx.problems.push('AUDIT_VERIFY_KEYS must hold Ed25519 keys only');
    } catch {
      ctx.problems.push('AUDIT_VERIFY_KEYS must hold PEM-encoded Ed25519 public keys');
    }
  }
}
