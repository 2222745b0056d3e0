import { Injectable } from '@nestjs/common';
import { hash } from 'node:crypto';
import type { VerifiedToken } from './jwt.strategy.js';

/** How many distinct tokens are remembered; the oldest is forgotten first. */
const CAPACITY = 10_000;

/**
 * Access tokens whose signature and claims were verified, remembered until they expire so that
 * the same token presented again skips the RS256 verification. A token is signed once and never
 * changes; the key that verifies it is read once for the life of the process; so what decided
 * its validity then decides it now, except the clock, which is compared on every lookup exactly
 * as jsonwebtoken compares it (`exp` in whole seconds, expired when now ≥ exp). Whether the user is
 * active and the session live is never remembered: the guard asks the database on every request.
 *
 * Only the SHA-256 of a token is kept, never the token: the map holds nothing a client could
 * present. Only verified tokens spelled as they were signed enter it, one entry per token, so its
 * size is bounded by the tokens this service issued that are still live, and capped; a token
 * forgotten is verified again, nothing worse.
 */
@Injectable()
export class VerifiedTokens {
  private readonly byDigest = new Map<string, VerifiedToken>();

  /** The verified token for this bearer token, if it was verified before and has not expired. */
  recall(raw: string, nowMs: number): VerifiedToken | undefined {
    const key = digestOf(raw);
    const token = this.byDigest.get(key);
    if (token === undefined) return undefined;
    // the `exp` claim is in seconds
    if (Math.floor(nowMs / 1000) >= token.exp) {
      this.byDigest.delete(key);
      return undefined;
    }
    return token;
  }

  remember(raw: string, token: VerifiedToken): void {
    // the decoder accepts several spellings of one signature (the spare bits of its last
    // character); only the canonical one is remembered, so one signed token is one entry
    if (!hasCanonicalSignature(raw)) return;
    const key = digestOf(raw);
    if (this.byDigest.has(key)) return;
    if (this.byDigest.size >= CAPACITY) {
      // a Map iterates in insertion order: the first key is the oldest
      const oldest = this.byDigest.keys().next();
      if (!oldest.done) this.byDigest.delete(oldest.value);
    }
    this.byDigest.set(key, token);
  }

  get size(): number {
    return this.byDigest.size;
  }
}

function hasCanonicalSignature(raw: string): boolean {
  const signature = raw.slice(raw.lastIndexOf('.') + 1);
  return Buffer.from(signature, 'base64url').toString('base64url') === signature;
}

function digestOf(raw: string): string {
  return hash('sha256', raw, 'base64');
}
