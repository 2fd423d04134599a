import { describe, expect, it } from 'vitest';
import { evaluateValidationRules, hasValidationRules } from './cel-rules.js';
import { validateAgainstSchema } from './structural-schema.js';

const schema = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('w-')", message: 'name must start with w-' }],
  properties: {
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max', fieldPath: '.min' }],
      properties: {
        min: { type: 'integer', default: 1 },
        max: { type: 'integer', default: 10 },
        mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] },
        wait: { type: 'string', 'x-kubernetes-validations': [{ rule: "duration(self) > duration('0s')" }] },
        tags: {
          type: 'array',
          items: { type: 'string' },
          'x-kubernetes-validations': [{ rule: 'self.size() <= 2', reason: 'FieldValueForbidden', message: 'at most two tags' }],
        },
        owner: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: "self != ''", reason: 'FieldValueRequired', message: 'owner is required' }],
        },
      },
    },
  },
};

const object = (spec: Record<string, unknown>, name = 'w-1') => ({
  metadata: { name, namespace: 'ns', labels: { a: 'b' } },
  spec: { min: 1, max: 2, ...spec },
});

describe('CEL validation rules', () => {
  it('accepts an object every rule holds for', () => {
    expect(evaluateValidationRules(schema, object({ mode: 'a', wait: '1m0s', tags: ['x'] }), undefined)).toEqual([]);
  });

  it.each([
    ['a false rule at the root, reading metadata.name', object({}, 'x'), '<nil>', 'Invalid value: "object": name must start with w-'],
    ['a rule across fields, reported at its fieldPath', object({ min: 3 }), 'spec.min', 'Invalid value: "object": min must not exceed max'],
    [
      'a rule without a message',
      object({ wait: '-1s' }),
      'spec.wait',
      `Invalid value: "string": failed rule: duration(self) > duration('0s')`,
    ],
    ['a Forbidden reason', object({ tags: ['a', 'b', 'c'] }), 'spec.tags', 'Forbidden: at most two tags'],
    ['a Required reason', object({ owner: '' }), 'spec.owner', 'Required value: owner is required'],
  ])('reports %s as kube-apiserver does', (_title, obj, field, message) => {
    expect(evaluateValidationRules(schema, obj, undefined)).toEqual([expect.objectContaining({ field, message })]);
  });

  it('reports a rule that fails to evaluate with the error and the rule', () => {
    const [cause] = evaluateValidationRules(schema, object({ wait: 'soon' }), undefined);
    expect(cause).toMatchObject({ field: 'spec.wait', reason: 'FieldValueInvalid' });
    expect(cause?.message).toMatch(/^Invalid value: "string": .* evaluating rule: duration\(self\) > duration\('0s'\)$/);
  });

  it('runs a transition rule on updates only, against the old value', () => {
    expect(evaluateValidationRules(schema, object({ mode: 'b' }), undefined)).toEqual([]);
    expect(evaluateValidationRules(schema, object({ mode: 'b' }), object({ mode: 'a' }))).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": mode is immutable', field: 'spec.mode' },
    ]);
    expect(evaluateValidationRules(schema, object({ mode: 'b' }), object({}))).toEqual([]);
  });

  it('finds rules anywhere in a schema', () => {
    expect(hasValidationRules(schema)).toBe(true);
    expect(hasValidationRules({ type: 'object', properties: { a: { type: 'string' } } })).toBe(false);
  });
});

describe('structural defaults', () => {
  it('applies the defaults of the fields of a defaulted object', () => {
    const s = {
      type: 'object',
      properties: { block: { type: 'object', default: {}, properties: { a: { type: 'string', default: 'x' }, b: { type: 'integer' } } } },
    };
    expect(validateAgainstSchema(s, {}).value).toEqual({ block: { a: 'x' } });
    expect(validateAgainstSchema(s, { block: { b: 2 } }).value).toEqual({ block: { a: 'x', b: 2 } });
  });
});
