import { describe, expect, it } from '@jest/globals';
import { MssqlParameter } from 'typeorm';
import { sqlServerParameter } from '../../src/database/prepared-statement.js';

/**
 * SQL Server caches a parameterized statement's plan by its text and its parameter declarations:
 * strings declared with their own lengths would give the hot statements one plan per length.
 */
describe('String parameters of prepared statements on SQL Server', () => {
  it('are declared with one length whatever their own, so the statement keeps one plan', () => {
    const short = sqlServerParameter('A') as MssqlParameter;
    const longer = sqlServerParameter('MEDIO_CON_NOMBRE_LARGO') as MssqlParameter;
    expect(short).toBeInstanceOf(MssqlParameter);
    expect([short.type, short.params]).toEqual(['nvarchar', [4000]]);
    expect([longer.type, longer.params]).toEqual(['nvarchar', [4000]]);
    expect(short.value).toBe('A');
  });

  it('are nvarchar(max) beyond 4000 characters, not cut', () => {
    const text = 'x'.repeat(4001);
    const p = sqlServerParameter(text) as MssqlParameter;
    expect([p.type, p.params, p.value]).toEqual(['nvarchar', ['max'], text]);
  });

  it('leave numbers, dates, booleans and nulls to the driver', () => {
    const at = new Date();
    expect([sqlServerParameter(7), sqlServerParameter(at), sqlServerParameter(true), sqlServerParameter(null)]).toEqual([7, at, true, null]);
  });
});
