import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, Min, registerDecorator, ValidateIf } from 'class-validator';
import { ToBoolean, ToInt, Trim } from './transforms.js';
import { VisibleText } from './visible-text.js';

// Each rule applies its validators in the order the stacked decorators it stands for registered
// them (bottom-up), so a value that breaks several rules gets its messages in the same order.

/** Largest value of an int column: an id beyond it is 400, not a store error. */
export const MAX_ID = 2_147_483_647;

/** A positive 32-bit integer written in decimal (a path segment), or undefined. */
export function parseId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,9}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n <= MAX_ID ? n : undefined;
}

/**
 * An id in a body or a query: an integer from 1 to MAX_ID, and the document says so (merged under
 * the field's own `@ApiProperty`, which keeps saying whether it is required or nullable).
 */
export function IsId(): PropertyDecorator {
  return applyDecorators(Max(MAX_ID), Min(1), IsInt(), ApiProperty({ minimum: 1, maximum: MAX_ID }));
}

/** An optional id in a query string: absent, or the decimal text of an id. */
export function QueryId(): PropertyDecorator {
  return applyDecorators(IsId(), ToInt(), IsOptional());
}

/** A boolean in a query string: absent, or exactly `true` or `false`. */
export function QueryFlag(): PropertyDecorator {
  return applyDecorators(IsBoolean(), ToBoolean(), IsOptional());
}

/** The `activo` filter of a list of `things`, documented the same way on every list. */
export function ActivoFilter(things: string): PropertyDecorator {
  return applyDecorators(QueryFlag(), ApiPropertyOptional({ description: `Only active (true) or inactive (false) ${things}; both when absent.` }));
}

/** Codes of medios, secciones, product types and products (docs/api.md "Conventions"): 1..20 of [A-Z0-9_], uppercase only. */
export const CODIGO_PATTERN = /^[A-Z0-9_]{1,20}$/;

/** A `codigo` that follows CODIGO_PATTERN. */
export function IsCodigo(): PropertyDecorator {
  return applyDecorators(Matches(CODIGO_PATTERN, { message: 'codigo debe tener de 1 a 20 caracteres de [A-Z0-9_]' }), IsString());
}

/**
 * A text that fits a column of `max` characters on either engine: at most `max` UTF-16 code units,
 * what SQL Server's `nvarchar(max)` holds and never more than PostgreSQL's `varchar(max)` (which
 * counts code points); a browser's `maxlength` counts the same units. class-validator's MaxLength
 * counts code points and skips variation selectors, so a description ending in ❤️ (two code
 * points, one counted) passed it and then overflowed its column. The error code stays `maxLength`.
 */
export function StoredLength(max: number): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'maxLength',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [max],
      options: { message: `$property must be shorter than or equal to ${max} characters` },
      validator: { validate: (value: unknown) => typeof value !== 'string' || value.length <= max },
    });
}

/**
 * Required text (names): in Unicode's composed form (NFC), trimmed and single-spaced, then a non-empty string of at most
 * `maxLength` characters (StoredLength) with no control or invisible character. The document says so too
 * (`minLength: 1` and a non-space character), merged under the field's own `@ApiProperty`, which
 * gives its example and `maxLength`.
 */
export function RequiredText(maxLength: number): PropertyDecorator {
  return applyDecorators(
    VisibleText(),
    StoredLength(maxLength),
    IsNotEmpty(),
    IsString(),
    Trim({ singleSpaced: true }),
    ApiProperty({ minLength: 1, pattern: '\\S' }),
  );
}

/**
 * Optional text: absent, or composed (NFC) and trimmed, then a string of at most `maxLength`
 * characters (empty allowed) with no control character but tabs and line breaks. `null` is not
 * absent: the document types the field as a string, and a client sending null to clear it would
 * otherwise get a 200 that kept the old text.
 */
export function OptionalText(maxLength: number, options: { singleSpaced?: boolean } = {}): PropertyDecorator {
  return applyDecorators(
    VisibleText({ multiline: true }),
    StoredLength(maxLength),
    IsString(),
    Trim(options),
    ValidateIf((_, value) => value !== undefined),
  );
}

/**
 * The `search` filter of a list: a case-insensitive substring, composed, trimmed and single-spaced
 * like a name (a term pasted with spaces around it or between its words, or typed with combining
 * accents, finds what it shows).
 */
export function SearchText(description: string, example: string): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description, maxLength: 100, example }), OptionalText(100, { singleSpaced: true }));
}
