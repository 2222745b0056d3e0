import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../../common/config/index.js';
import { readOrCreateOnce } from '../../common/config/data-dir-file.js';

/** A public Ed25519 key as published at GET /.well-known/audit-keys.json. */
export interface AuditPublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** The RFC 7638 thumbprint of an Ed25519 public key: its stable key id (`keyId` of the seals). */
export function ed25519KeyId(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  return createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
    .digest('base64url');
}

function toJwk(key: KeyObject): AuditPublicJwk {
  const jwk = key.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: String(jwk.x), kid: ed25519KeyId(key), alg: 'EdDSA', use: 'sig' };
}

/** Every PEM public (or private: its public half is taken) key block of a text, parsed. */
export function parsePublicKeys(pemText: string): KeyObject[] {
  const blocks = pemText.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
  return blocks.map((block) => {
    const key = createPublicKey(block);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('audit verification keys must be Ed25519');
    return key;
  });
}

/** The public keys of a JWKS document (`{keys: [...]}`, as GET /.well-known/audit-keys.json answers). */
export function parseJwks(json: string): KeyObject[] {
  const doc = JSON.parse(json) as { keys?: Array<Record<string, unknown>> };
  return (doc.keys ?? []).map((jwk) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: String(jwk.x) }, format: 'jwk' }));
}

/**
 * Verifies seal signatures by key id. The current key and any older keys (kept after a rotation)
 * verify; only the current one signs.
 */
export class AuditVerifyKeys {
  private readonly byId = new Map<string, KeyObject>();

  constructor(keys: readonly KeyObject[]) {
    for (const k of keys) this.byId.set(ed25519KeyId(k), k);
  }

  has(keyId: string): boolean {
    return this.byId.has(keyId);
  }

  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  /** true when `signature` (base64) is the key's Ed25519 signature of `message`; false for an unknown key. */
  verify(keyId: string, message: string, signature: string): boolean {
    const key = this.byId.get(keyId);
    if (!key) return false;
    try {
      return verify(null, Buffer.from(message), key, Buffer.from(signature, 'base64'));
    } catch {
      return false;
    }
  }

  jwks(): AuditPublicJwk[] {
    return [...this.byId.values()].map(toJwk);
  }
}

/** The Ed25519 key that signs the audit seals, and the keys that verify them. */
export class AuditSigningKeys {
  readonly keyId: string;
  readonly publicKey: KeyObject;
  readonly verifyKeys: AuditVerifyKeys;

  constructor(
    readonly privateKeyObject: KeyObject,
    previous: readonly KeyObject[] = [],
  ) {
    if (privateKeyObject.asymmetricKeyType !== 'ed25519') throw new Error('AUDIT_SIGNING_KEY must be an Ed25519 private key');
    this.publicKey = createPublicKey(privateKeyObject);
    this.keyId = ed25519KeyId(this.publicKey);
    this.verifyKeys = new AuditVerifyKeys([this.publicKey, ...previous]);
  }

  /** Ed25519 signature of the text, base64. */
  sign(message: string): string {
    return sign(null, Buffer.from(message), this.privateKeyObject).toString('base64');
  }

  /**
   * The configured key; in development and tests, one generated once into DATA_DIR and reused.
   * (Production refuses to start without one: see loadAppConfig.)
   */
  static load(config: AppConfig): AuditSigningKeys {
    const previous = config.auditSeal.verifyKeysPem ? parsePublicKeys(config.auditSeal.verifyKeysPem) : [];
    if (config.auditSeal.signingKeyPem) return new AuditSigningKeys(createPrivateKey(config.auditSeal.signingKeyPem), previous);
    const privateKeyPem = readOrCreateOnce(
      developmentKeyFile(config),
      () =>
        generateKeyPairSync('ed25519', {
          privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
          publicKeyEncoding: { type: 'spki', format: 'pem' },
        }).privateKey,
    );
    return new AuditSigningKeys(createPrivateKey(privateKeyPem), previous);
  }

  /**
   * The keys a verifier finds without creating one: the configured key, or the one a development
   * service generated into DATA_DIR; undefined when there is neither (a key made now would have
   * signed no seal, and every seal would read as signed by an unknown key).
   */
  static existing(config: AppConfig): AuditSigningKeys | undefined {
    if (config.auditSeal.signingKeyPem || existsSync(developmentKeyFile(config))) return AuditSigningKeys.load(config);
    return undefined;
  }
}

function developmentKeyFile(config: AppConfig): string {
  return join(config.dataDir, 'audit-signing-key.pem');
}
