import { registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * What a name cannot hold: control characters (C0, DEL, C1), invisible format characters
 * (zero-width spaces and joiners, bidi marks, BOM), the line and paragraph separators, every
 * character Unicode says renderers draw as nothing when they cannot show it (default-ignorable:
 * the Hangul fillers, the combining grapheme joiner, variation selectors, tags…), the blank
 * braille pattern, code points no font draws the same for everyone (unassigned ones and
 * noncharacters, private use) and U+FFFD, the mark of text that lost its bytes on the way — and a
 * combining mark at the start, with no letter to sit on.
 */
const INVISIBLE_IN_NAMES = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cn}\p{Co}\p{Default_Ignorable_Code_Point}\u2800\uFFFD]|^\p{M}/u;
/** Control characters, except the tab and line breaks a description may hold. */
const CONTROL_IN_TEXT = /[^\P{Cc}\t\n\r]/u;

/**
 * Text people read on a screen: a name cannot hold characters that show as nothing, so two names
 * that look the same are the same (a zero-width space in front of a sibling's name, a name made of
 * one). `multiline` texts (descriptions, searches) may hold tabs, line breaks and format
 * characters, never other control characters.
 */
export function VisibleText(options: { multiline?: boolean } & ValidationOptions = {}): PropertyDecorator {
  const { multiline = false, ...validation } = options;
  const forbidden = multiline ? CONTROL_IN_TEXT : INVISIBLE_IN_NAMES;
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'visibleText',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: multiline
          ? `${String(propertyName)} no puede contener caracteres de control`
          : `${String(propertyName)} no puede contener caracteres de control ni invisibles`,
        ...validation,
      },
      validator: { validate: (value: unknown) => typeof value !== 'string' || !forbidden.test(value) },
    });
  };
}
