import { describe, expect, it } from 'vitest';
import { roundCosts } from '../src/index.js';

describe('roundCosts', () => {
  it.each([
    [1.00005, 1.0001],
    [0.12344, 0.1234],
    [0, 0],
    [123456.987654, 123456.9877],
  ])('rounds %d to %d', (input, expected) => {
    expect(roundCosts({ per_km: input })).toEqual({ per_km: expected });
  });
});
