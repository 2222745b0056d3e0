import { describe, expect, it } from '@jest/globals';
import type { VerifiedToken } from './jwt.strategy.js';
import { VerifiedTokens } from './verified-tokens.js';

const token = (userId: number, exp: number): VerifiedToken => ({
  userId,
  username: `u${userId}`,
  rol: 'auditor',
  jti: `jti-${userId}`,
  sessionId: '00000000-0000-4000-8000-000000000000',
  exp,
});

describe('VerifiedTokens', () => {
  it('recalls a remembered token until the second of its exp, as jsonwebtoken compares it', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.b.cA', token(1, 1_000));
    expect(tokens.recall('a.b.cA', 999_999)?.userId).toBe(1);
    expect(tokens.recall('a.b.cA', 1_000_000)).toBeUndefined();
    // an expired entry is forgotten, not kept for later
    expect(tokens.size).toBe(0);
  });

  it('recalls only the exact token string', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.b.cA', token(1, 2_000));
    expect(tokens.recall('a.b.CA', 0)).toBeUndefined();
    expect(tokens.recall('a.b.cA ', 0)).toBeUndefined();
    expect(tokens.recall('a.b.cA', 0)?.userId).toBe(1);
  });

  it('remembers a signature only as the encoder spells it, so one token is one entry', () => {
    const tokens = new VerifiedTokens();
    // "cA" and "cB" decode to the same byte; "cB" sets spare bits the encoder leaves at zero
    tokens.remember('a.b.cB', token(1, 2_000));
    expect(tokens.size).toBe(0);
    tokens.remember('a.b.cA', token(1, 2_000));
    tokens.remember('a.b.cA', token(1, 2_000));
    expect(tokens.size).toBe(1);
  });

  it('keeps at most 10,000 tokens, forgetting the oldest first', () => {
    const tokens = new VerifiedTokens();
    for (let i = 1; i <= 10_001; i++) tokens.remember(`t.${i}.AA`, token(i, 2_000));
    expect(tokens.size).toBe(10_000);
    expect(tokens.recall('t.1.AA', 0)).toBeUndefined();
    expect(tokens.recall('t.2.AA', 0)?.userId).toBe(2);
    expect(tokens.recall('t.10001.AA', 0)?.userId).toBe(10_001);
  });
});
