import { registerDecorator, type ValidationOptions } from 'class-validator';

/** "Today" for prices is the calendar date in Buenos Aires (docs/api.md "Catalog"). */
export const ARGENTINA_TIME_ZONE = 'America/Argentina/Buenos_Aires';

/** Largest amount numeric(12,2) holds. */
export const MAX_MONTO = 9_999_999_999.99;

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The calendar date (`yyyy-MM-dd`) of an instant in a time zone. */
export function calendarDateIn(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}

/** Today in Argentina for the given "now" (02:30 UTC is still the previous day there). */
export function todayInArgentina(now: Date): string {
  return calendarDateIn(now, ARGENTINA_TIME_ZONE);
}

/**
 * true for exactly `yyyy-MM-dd` naming a real calendar date (year 0001..9999): no time part, no
 * offset, no surrounding space, and no 2026-02-30.
 */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE_PATTERN.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * A price amount as it arrives in the JSON body: a JSON number (not a string), finite, > 0, at
 * most 2 decimals, within numeric(12,2). The decimals are read from the number's shortest
 * round-trip form, so `10.1` and `10.10` pass and `10.001` does not.
 */
export function isMonto(value: unknown): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_MONTO) return false;
  return /^\d+(\.\d{1,2})?$/.test(String(value));
}

export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} debe ser una fecha real con el formato yyyy-MM-dd`, ...options },
      validator: { validate: isCalendarDate },
    });
  };
}

export function IsMonto(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isMonto',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} debe ser un número JSON mayor que 0, de hasta ${MAX_MONTO} y con hasta 2 decimales`, ...options },
      validator: { validate: isMonto },
    });
  };
}
