import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { AppConfig } from '../common/config/index.js';
import { readOrCreateOnce } from '../common/config/data-dir-file.js';

/** The RS256 key pair that signs access tokens, with its key id and public JWK. */
export class JwtKeys {
  readonly kid: string;
  readonly publicJwk: JsonWebKey;
  /**
   * The public key parsed once: handed to jsonwebtoken as a KeyObject, verifying a token costs less
   * than half of what it costs with the PEM text, which it would parse again on every request.
   */
  readonly publicKey: KeyObject;
  /** The private key parsed once (signing, like verifying, would parse the PEM text on every call). */
  readonly privateKey: KeyObject;

  constructor(
    readonly privateKeyPem: string,
    readonly publicKeyPem: string,
  ) {
    this.publicKey = createPublicKey(publicKeyPem);
    this.privateKey = createPrivateKey(privateKeyPem);
    const jwk = this.publicKey.export({ format: 'jwk' });
    // RFC 7638 thumbprint: stable across restarts for the same key
    this.kid = createHash('sha256')
      .update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }))
      .digest('base64url');
    this.publicJwk = { kty: jwk.kty, n: jwk.n, e: jwk.e, kid: this.kid, alg: 'RS256', use: 'sig' };
  }

  /**
   * Keys from configuration; in development, a pair generated once into DATA_DIR and reused.
   * (Production refuses to start without configured keys: see loadAppConfig.)
   */
  static load(config: AppConfig): JwtKeys {
    if (config.jwt.privateKeyPem && config.jwt.publicKeyPem) return new JwtKeys(config.jwt.privateKeyPem, config.jwt.publicKeyPem);
    // the private key decides (one file, created once even by replicas starting together); the
    // public one is derived from it, and written beside it for whoever verifies tokens elsewhere
    const privateKeyPem = readOrCreateOnce(join(config.dataDir, 'jwt-private.pem'), () => generateRsaKeyPair().privateKeyPem);
    const publicKeyPem = createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
    readOrCreateOnce(join(config.dataDir, 'jwt-public.pem'), () => publicKeyPem, 0o644);
    return new JwtKeys(privateKeyPem, publicKeyPem);
  }
}

export function generateRsaKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}
