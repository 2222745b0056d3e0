import { Transform } from 'class-transformer';

/**
 * Query-string conversions, explicit because the ValidationPipe does no implicit conversion:
 * a value that does not convert is left as the raw string, so the type validators reject it (400).
 * An integer is written as in JSON and in a path id: no sign but a minus, no leading zero (`07`
 * is refused in a query as it is in a path).
 */
export const ToInt = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' && CANONICAL_INT.test(value) ? Number(value) : value));

const CANONICAL_INT = /^(?:0|-?[1-9]\d{0,14})$/;

export const ToBoolean = () => Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value));

/**
 * Text as stored and compared: Unicode's composed form (NFC), so "Ñ" typed as N + combining tilde
 * (as some keyboards send it) is the same name as "Ñ", then without surrounding white space.
 * `singleSpaced` (names): each run of spaces inside, of any width (a no-break, thin or
 * ideographic space), becomes one plain space, so "Autos  usados" and "Autos\u00A0usados" are
 * the name "Autos usados"; tabs and line breaks are not spaces, and a name refuses them.
 */
export const Trim = (options: { singleSpaced?: boolean } = {}) =>
  Transform(({ value }: { value: unknown }) => {
    if (typeof value !== 'string') return value;
    const trimmed = value.normalize('NFC').trim();
    return options.singleSpaced ? trimmed.replace(SPACES, ' ') : trimmed;
  });

/** a run of Unicode space separators (Zs) */
const SPACES = /\p{Zs}+/gu;
