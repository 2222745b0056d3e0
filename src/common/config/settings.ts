import { readFileSync } from 'node:fs';
import { redactUrl } from './redact-url.js';

/** What reading a setting needs: the environment, the NODE_ENV already read, and where problems go. */
export interface ReadContext {
  readonly env: NodeJS.ProcessEnv;
  readonly nodeEnv: string;
  /** every problem found, each a sentence naming its variable; the caller throws them all at once */
  readonly problems: string[];
}

/**
 * One configuration value, declared once: the environment variables it reads, how it is
 * validated (with the message that names the variable), its type and its default.
 */
export class Setting<T> {
  constructor(
    /** the variables it reads (a PEM setting reads `NAME` and `NAME_FILE`) */
    readonly variables: readonly string[],
    /** the value it takes outside tests when unset, written as in the environment; undefined: none */
    readonly defaultText: string | undefined,
    private readonly readFrom: (ctx: ReadContext) => T,
  ) {}

  read(ctx: ReadContext): T {
    return this.readFrom(ctx);
  }

  /** The same variables and validation, the value turned into what the code reads. */
  map<U>(convert: (value: T, ctx: ReadContext) => U): Setting<U> {
    return new Setting(this.variables, this.defaultText, (ctx) => convert(this.readFrom(ctx), ctx));
  }
}

/** Settings grouped in the shape of the configuration object they produce. */
export interface SettingTree {
  readonly [key: string]: Setting<unknown> | SettingTree;
}

/** The configuration a tree of settings produces: each setting replaced by its value's type. */
export type ValuesOf<S extends SettingTree> = {
  -readonly [K in keyof S]: S[K] extends Setting<infer T> ? T : S[K] extends SettingTree ? ValuesOf<S[K]> : never;
};

export function readSettings<S extends SettingTree>(settings: S, ctx: ReadContext): ValuesOf<S> {
  return Object.fromEntries(
    Object.entries(settings).map(([key, s]) => [key, s instanceof Setting ? s.read(ctx) : readSettings(s, ctx)]),
  ) as ValuesOf<S>;
}

/** Every setting of a tree, in declaration order. */
export function settingsOf(settings: SettingTree): Array<Setting<unknown>> {
  return Object.values(settings).flatMap((s) => (s instanceof Setting ? [s] : settingsOf(s)));
}

/** A default, and optionally another one under NODE_ENV=test (tests run many apps in one process). */
interface Defaults<T> {
  default: T;
  test?: T;
}

const fallback = <T>(defaults: Defaults<T>, ctx: ReadContext): T =>
  ctx.nodeEnv === 'test' && defaults.test !== undefined ? defaults.test : defaults.default;

/** Records a problem; the rejected value is quoted unless the variable holds a secret. */
function reportProblem(ctx: ReadContext, variable: string, message: string, got?: string): undefined {
  // a password or a key's PEM; not AUDIT_SANITIZE_KEYS, a list of names
  const secret = variable.includes('PASSWORD') || variable.endsWith('KEY');
  const shown = secret ? '***' : variable.endsWith('_URL') ? redactUrl(got ?? '') : got;
  ctx.problems.push(got === undefined ? message : `${message} (got "${shown}")`);
  return undefined;
}

/** unset, empty or blank: not given */
const given = (raw: string | undefined) => (raw === undefined || raw.trim() === '' ? undefined : raw);

function defaultOf<T>(defaults: Partial<Defaults<T>>): string | undefined {
  return defaults.default === undefined ? undefined : String(defaults.default);
}

interface Range {
  min: number;
  max: number;
  /** what the number counts, for the message: `seconds` → "an integer number of seconds" */
  unit?: string;
  /** appended to the message */
  note?: string;
}

/** An integer from `min` to `max` (an empty value is invalid, not a default). */
export function int(name: string, range: Range & Defaults<number>): Setting<number>;
export function int(name: string, range: Range): Setting<number | undefined>;
export function int(name: string, range: Range & Partial<Defaults<number>>): Setting<number | undefined> {
  const message = `${name} must be an integer${range.unit ? ` number of ${range.unit}` : ''} from ${range.min} to ${range.max}${range.note ? ` ${range.note}` : ''}`;
  // an integer out of range is reported with the range alone; text that is no integer is quoted
  return new Setting([name], defaultOf(range), (ctx) => {
    const raw = ctx.env[name];
    if (raw === undefined) return range.default === undefined ? undefined : fallback(range as Defaults<number>, ctx);
    if (!/^-?\d+$/.test(raw.trim())) return reportProblem(ctx, name, message, raw);
    const value = Number(raw.trim());
    return value < range.min || value > range.max ? reportProblem(ctx, name, message) : value;
  });
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

/** true/1/yes/on or false/0/no/off, any case. */
export function bool(name: string, defaults: Defaults<boolean>): Setting<boolean> {
  return new Setting([name], defaultOf(defaults), (ctx) => {
    const raw = ctx.env[name];
    if (raw === undefined) return fallback(defaults, ctx);
    const word = raw.trim().toLowerCase();
    if (TRUE.includes(word)) return true;
    if (FALSE.includes(word)) return false;
    return reportProblem(ctx, name, `${name} must be true or false`, raw) ?? fallback(defaults, ctx);
  });
}

/** One of a fixed list of words, exactly as written. */
export function oneOf<const V extends string>(name: string, values: readonly V[], defaults: Defaults<V>): Setting<V> {
  return new Setting([name], defaultOf(defaults), (ctx) => {
    const raw = ctx.env[name];
    if (raw === undefined) return fallback(defaults, ctx);
    if ((values as readonly string[]).includes(raw)) return raw as V;
    reportProblem(ctx, name, `${name} must be one of ${values.join(', ')}`, raw);
    return raw as V;
  });
}

/** Free text; empty or blank counts as unset. */
export function text(name: string, defaults: Defaults<string>): Setting<string>;
export function text(name: string): Setting<string | undefined>;
export function text(name: string, defaults?: Defaults<string>): Setting<string | undefined> {
  return new Setting([name], defaults && defaultOf(defaults), (ctx) => given(ctx.env[name]) ?? (defaults && fallback(defaults, ctx)));
}

/** Text that must match `pattern`; empty or blank counts as unset unless the pattern itself allows empty (then empty is a value). */
export function matching(name: string, pattern: RegExp, message: string, defaults: Defaults<string>): Setting<string>;
export function matching(name: string, pattern: RegExp, message: string): Setting<string | undefined>;
export function matching(name: string, pattern: RegExp, message: string, defaults?: Defaults<string>): Setting<string | undefined> {
  const emptyIsValue = pattern.test('');
  return new Setting([name], defaults && defaultOf(defaults), (ctx) => {
    const raw = emptyIsValue ? ctx.env[name] : given(ctx.env[name]);
    if (raw === undefined) return defaults && fallback(defaults, ctx);
    if (!pattern.test(raw)) reportProblem(ctx, name, message, raw);
    return raw;
  });
}

/** A comma-separated list, checked whole against `pattern`; unset is the empty list. */
export function list(name: string, pattern: RegExp, message: string): Setting<string[]> {
  return new Setting([name], '', (ctx) => {
    const raw = ctx.env[name];
    if (raw === undefined) return [];
    if (!pattern.test(raw)) reportProblem(ctx, name, message, raw);
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  });
}

/** A PEM document given inline in `NAME`, or as the path of a file in `NAME_FILE` (read only when `NAME` is unset). */
export function pem(name: string): Setting<string | undefined> {
  const fileVariable = `${name}_FILE`;
  return new Setting([name, fileVariable], undefined, (ctx) => {
    const inline = given(ctx.env[name]);
    const path = given(ctx.env[fileVariable]);
    if (inline !== undefined || path === undefined) return inline;
    try {
      return readFileSync(path, 'utf8');
    } catch {
      reportProblem(ctx, fileVariable, `${fileVariable} must name a readable PEM file (could not read ${path})`);
      return undefined;
    }
  });
}
