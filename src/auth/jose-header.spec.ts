import { describe, expect, it } from '@jest/globals';
import { AcceptedHeaders, claimsMayBeObject } from './jose-header.js';

const segment = (header: object) => Buffer.from(JSON.stringify(header)).toString('base64url');
const token = (header: object) => `${segment(header)}.eyJzdWIiOiIxIn0.c2ln`;

describe('AcceptedHeaders', () => {
  const good = { alg: 'RS256', typ: 'JWT', kid: 'k1' };

  it('accepts the published kid, and the same header again without decoding it', () => {
    const headers = new AcceptedHeaders('k1');
    expect(headers.accepts(token(good))).toBe(true);
    expect(headers.accepts(token(good))).toBe(true);
  });

  it('checks every other header in full, also after one was accepted', () => {
    const headers = new AcceptedHeaders('k1');
    expect(headers.accepts(token(good))).toBe(true);
    expect(headers.accepts(token({ ...good, kid: 'k2' }))).toBe(false);
    expect(headers.accepts(token({ ...good, crit: ['exp'] }))).toBe(false);
    expect(headers.accepts(`${segment(good)}x.eyJzdWIiOiIxIn0.c2ln`)).toBe(false);
    expect(headers.accepts('not-a-token')).toBe(false);
    // the accepted header is still accepted after the refusals
    expect(headers.accepts(token(good))).toBe(true);
  });

  it('never remembers a refused header', () => {
    const headers = new AcceptedHeaders('k1');
    const bad = token({ ...good, kid: 'k2' });
    expect(headers.accepts(bad)).toBe(false);
    expect(headers.accepts(bad)).toBe(false);
  });
});

describe('claimsMayBeObject', () => {
  const claims = (value: unknown) => `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify(value)).toString('base64url')}.c2ln`;

  it('lets claims that begin as an object through, and nothing else', () => {
    expect(claimsMayBeObject(claims({ sub: '1' }))).toBe(true);
    expect(claimsMayBeObject(claims({}))).toBe(true);
    for (const value of [null, [], 'x', 1, true]) expect(claimsMayBeObject(claims(value))).toBe(false);
    expect(claimsMayBeObject('no-dots')).toBe(false);
    expect(claimsMayBeObject('header.')).toBe(false);
  });
});
