import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors.js';
import { createAgentPlatform } from '../../../src/service/platform/index.js';

describe('platform options', () => {
  it('delivery.attempts below 1 or fractional is an InvalidOptionError naming the field', () => {
    for (const attempts of [0, -1, 1.5]) {
      let caught: unknown;
      try {
        createAgentPlatform({ delivery: { attempts } });
      } catch (e) {
        caught = e;
      }
      expect(caught, String(attempts)).toBeInstanceOf(InvalidOptionError);
      expect(caught).toMatchObject({ code: 'INVALID_OPTION', field: 'delivery.attempts' });
    }
  });
});
