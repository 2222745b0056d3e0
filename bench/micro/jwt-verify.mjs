// Micro-benchmark behind a recommendation in BENCHMARKS.md: the cost of verifying one access
// token the way passport-jwt does it today (jsonwebtoken.verify with the PEM string, which parses
// the key on every call) against a KeyObject parsed once. Usage: node bench/micro/jwt-verify.mjs
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const jwt = createRequire(import.meta.url)('jsonwebtoken');
const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const token = jwt.sign({ name: 'admin', rol: 'admin' }, privateKey, {
  algorithm: 'RS256',
  keyid: 'k1',
  subject: '1',
  issuer: 'medios-admin-api',
  audience: 'medios-admin',
  expiresIn: 900,
  jwtid: 'x',
});
const options = { algorithms: ['RS256'], issuer: 'medios-admin-api', audience: 'medios-admin' };
const keyObject = createPublicKey(publicKey);

const variants = {
  'PEM string (today)': () => jwt.verify(token, publicKey, options),
  'KeyObject parsed once': () => jwt.verify(token, keyObject, options),
  'createPublicKey(PEM) alone': () => createPublicKey(publicKey),
};
const N = 5000;
const totals = Object.fromEntries(Object.keys(variants).map((k) => [k, 0]));
for (let round = 0; round < 6; round++) {
  for (const [name, fn] of Object.entries(variants)) {
    const t = performance.now();
    for (let i = 0; i < N; i++) fn();
    if (round > 0) totals[name] += performance.now() - t; // round 0 warms up
  }
}
for (const [name, ms] of Object.entries(totals)) console.log(`${name.padEnd(28)} ${((ms / (5 * N)) * 1000).toFixed(1)} µs per call`);
