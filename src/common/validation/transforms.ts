import { Transform } from 'class-transformer';

/**
 * Query-string conversions, explicit because the ValidationPipe does no implicit conversion:
 * a value that does not convert is left as the raw string, so the type validators reject it (400).
 */
export const ToInt = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value));

export const ToBoolean = () => Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value));

/**
 * Text as stored and compared: Unicode's composed form (NFC), so "Ñ" typed as N + combining tilde
 * (as some keyboards send it) is the same name as "Ñ", then without surrounding white space.
 */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.normalize('NFC').trim() : value));
