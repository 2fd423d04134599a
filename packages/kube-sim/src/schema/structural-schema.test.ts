import { describe, expect, it } from 'vitest';
import { validateAgainstSchema } from './structural-schema.js';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5, minLength: 2 },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
        port: { 'x-kubernetes-int-or-string': true },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        maybe: { type: 'string', nullable: true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
};

describe('structural schema validation', () => {
  it.each([
    [{ size: 'big' }, 'spec.size', 'FieldValueTypeInvalid'],
    [{}, 'spec.size', 'FieldValueRequired'],
    [{ size: 1, color: 'green' }, 'spec.color', 'FieldValueNotSupported'],
    [{ size: 0 }, 'spec.size', 'FieldValueInvalid'],
    [{ size: 11 }, 'spec.size', 'FieldValueInvalid'],
    [{ size: 1, name: 'ABC' }, 'spec.name', 'FieldValueInvalid'],
    [{ size: 1, name: 'abcdefg' }, 'spec.name', 'FieldValueTooLong'],
    [{ size: 1, name: 'a' }, 'spec.name', 'FieldValueInvalid'],
    [{ size: 1, tags: [1] }, 'spec.tags[0]', 'FieldValueTypeInvalid'],
    [{ size: 1, tags: ['a', 'b', 'c'] }, 'spec.tags', 'FieldValueTooMany'],
    [{ size: 1, port: true }, 'spec.port', 'FieldValueTypeInvalid'],
    [{ size: 1, labels: { a: 1 } }, 'spec.labels.a', 'FieldValueTypeInvalid'],
  ])('rejects spec %j at %s with %s', (spec, field, reason) => {
    const r = validateAgainstSchema(schema, { spec });
    expect(r.causes).toEqual(expect.arrayContaining([expect.objectContaining({ field, reason })]));
  });

  it('prunes unknown fields, keeps preserved ones, applies defaults and accepts nullable nulls', () => {
    const r = validateAgainstSchema(schema, {
      spec: { size: 2, bogus: 1, free: { any: { thing: 1 } }, maybe: null, port: '8080' },
      extra: true,
    });
    expect(r.causes).toEqual([]);
    expect(r.pruned.sort()).toEqual(['extra', 'spec.bogus']);
    expect(r.value).toEqual({ spec: { size: 2, free: { any: { thing: 1 } }, maybe: null, port: '8080', color: 'red' } });
  });
});
