import { describe, expect, it } from '@jest/globals';
import { passwordProblems, TEMPORARY_PASSWORD_LENGTH, temporaryPassword } from './password-policy.js';

describe('password policy', () => {
  it('accepts 10 bytes that mix two character classes', () => {
    expect(passwordProblems('abcdefghi1', 'ana')).toEqual([]);
    expect(passwordProblems('correct horse', 'ana')).toEqual([]);
  });

  it('rejects fewer than 10 bytes', () => {
    expect(passwordProblems('abcdefgh1', 'ana')).toHaveLength(1);
  });

  it('counts bytes, not characters: 72 bytes pass, 73 do not', () => {
    expect(passwordProblems(`${'ñ'.repeat(35)}a1`, 'ana')).toEqual([]); // 70 + 2 bytes
    expect(passwordProblems(`${'ñ'.repeat(35)}Ab1`, 'ana')).toEqual(['no puede superar 72 bytes']); // 73 bytes, 3 classes
  });

  it('rejects the username, whatever its case', () => {
    expect(passwordProblems('Juan.Perez2024', 'juan.perez2024')).toHaveLength(1);
  });

  it('rejects a password of one character class', () => {
    expect(passwordProblems('abcdefghijkl', 'ana')).toHaveLength(1);
    expect(passwordProblems('ABCDEFGHIJKL', 'ana')).toHaveLength(1);
    expect(passwordProblems('123456789012', 'ana')).toHaveLength(1);
    expect(passwordProblems('!!!!!!!!!!!!', 'ana')).toHaveLength(1);
  });

  it('makes temporary passwords that comply and differ', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const p = temporaryPassword();
      expect(p).toHaveLength(TEMPORARY_PASSWORD_LENGTH);
      expect(p).toMatch(/[a-z]/);
      expect(p).toMatch(/[A-Z]/);
      expect(p).toMatch(/[0-9]/);
      expect(passwordProblems(p, 'admin')).toEqual([]);
      seen.add(p);
    }
    expect(seen.size).toBe(200);
  });
});
