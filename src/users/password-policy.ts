import { randomInt } from 'node:crypto';
import { MAX_PASSWORD_BYTES } from '../auth/password-limits.js';

/**
 * The password policy (docs/api.md "Users"). Fixed values rather than configuration: the maximum is
 * bcrypt's input limit, and the minimum is the contract's default.
 *   - 10 to 72 bytes of UTF-8 (bcrypt would silently ignore what follows byte 72);
 *   - not equal to the username (compared case-insensitively);
 *   - not all one character class: at least two of lowercase, uppercase, digits, other.
 */
export const PASSWORD_MIN_BYTES = 10;
export const PASSWORD_MAX_BYTES = MAX_PASSWORD_BYTES;
export const PASSWORD_MIN_CLASSES = 2;

/** What is wrong with a password under the policy; empty when it complies. */
export function passwordProblems(password: string, username: string): string[] {
  const problems: string[] = [];
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes < PASSWORD_MIN_BYTES) problems.push(`debe tener al menos ${PASSWORD_MIN_BYTES} bytes`);
  if (bytes > PASSWORD_MAX_BYTES) problems.push(`no puede superar ${PASSWORD_MAX_BYTES} bytes`);
  if (password.toLowerCase() === username.toLowerCase()) problems.push('no puede ser igual al nombre de usuario');
  if (characterClasses(password) < PASSWORD_MIN_CLASSES)
    problems.push('debe combinar al menos dos clases de caracteres (minúsculas, mayúsculas, dígitos, otros)');
  return problems;
}

function characterClasses(password: string): number {
  const classes = new Set<string>();
  for (const ch of password) {
    if (/\p{Ll}/u.test(ch)) classes.add('lower');
    else if (/\p{Lu}/u.test(ch)) classes.add('upper');
    else if (/\p{Nd}/u.test(ch)) classes.add('digit');
    else classes.add('other');
  }
  return classes.size;
}

const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';
const ALPHABET = LOWER + UPPER + DIGITS;
export const TEMPORARY_PASSWORD_LENGTH = 16;

/**
 * A random temporary password that satisfies the policy: 16 characters from a cryptographic RNG
 * (about 93 bits), at least one lowercase, one uppercase and one digit, no look-alike characters.
 */
export function temporaryPassword(): string {
  const chars = [pick(LOWER), pick(UPPER), pick(DIGITS)];
  while (chars.length < TEMPORARY_PASSWORD_LENGTH) chars.push(pick(ALPHABET));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}

function pick(alphabet: string): string {
  return alphabet[randomInt(alphabet.length)] as string;
}
