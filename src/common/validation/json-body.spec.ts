import { describe, expect, it } from '@jest/globals';
import { jsonShapeProblem, MAX_JSON_ARRAY_ITEMS, MAX_JSON_DEPTH, MAX_JSON_PROPERTIES } from './json-body.js';

const object = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const array = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => i));

describe('jsonShapeProblem (read from the text before parsing)', () => {
  it('accepts exactly the limits and refuses one more', () => {
    expect(jsonShapeProblem(object(MAX_JSON_PROPERTIES))).toBeUndefined();
    expect(jsonShapeProblem(object(MAX_JSON_PROPERTIES + 1))?.message).toContain('propiedades');
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH + 1))?.message).toContain('niveles');
    expect(jsonShapeProblem(array(MAX_JSON_ARRAY_ITEMS))).toBeUndefined();
    expect(jsonShapeProblem(array(MAX_JSON_ARRAY_ITEMS + 1))?.message).toContain('elementos');
  });

  it('counts properties at every depth together', () => {
    const inner = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`a${i}`, i]));
    expect(jsonShapeProblem(JSON.stringify({ x: inner, y: inner }))?.message).toContain('propiedades');
  });

  it('ignores colons, commas, brackets and escaped quotes inside strings', () => {
    const tricky = JSON.stringify({ s: `${':,[{'.repeat(5000)}\\"]}"`, t: '\\\\' });
    expect(jsonShapeProblem(tricky)).toBeUndefined();
  });

  it('counts the items of each array on its own level, not those of nested arrays', () => {
    const rows = JSON.stringify(Array.from({ length: 10 }, () => Array.from({ length: 900 }, () => 0)));
    expect(jsonShapeProblem(rows)).toBeUndefined();
  });
});
