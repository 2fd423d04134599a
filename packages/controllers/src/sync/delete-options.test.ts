import { describe, expect, it } from 'vitest';
import type { DeleteOptions } from '@kubefed/client';
import { parseDeleteOptions } from './delete-options.js';
import { DeleteOptionsError } from './errors.js';

const withAnnotation = (value?: string) => ({ metadata: value === undefined ? {} : { annotations: { 'kubefed.io/deleteoption': value } } });

describe('parseDeleteOptions (docs/kubefed-compatibility.md §2, §4.4.11)', () => {
  it.each<[string, string | undefined, DeleteOptions]>([
    ['no annotation gives no options', undefined, {}],
    ['JSON null gives no options', 'null', {}],
    ['an empty object gives no options', '{}', {}],
    ['passes propagationPolicy', '{"propagationPolicy":"Orphan"}', { propagationPolicy: 'Orphan' }],
    ['passes gracePeriodSeconds', '{"gracePeriodSeconds":0}', { gracePeriodSeconds: 0 }],
    [
      'passes preconditions',
      '{"preconditions":{"uid":"u-1","resourceVersion":"7"}}',
      { preconditions: { uid: 'u-1', resourceVersion: '7' } },
    ],
    [
      'ignores other fields',
      '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"],"propagationPolicy":"Foreground"}',
      { propagationPolicy: 'Foreground' },
    ],
    ['treats null fields as absent', '{"gracePeriodSeconds":null,"preconditions":null}', {}],
  ])('%s', (_title, value, expected) => {
    expect(parseDeleteOptions(withAnnotation(value))).toEqual(expected);
  });

  it.each<[string, string, RegExp]>([
    [
      'invalid JSON',
      '{propagationPolicy: Orphan}',
      /^could not deserialize delete options from annotation value '\{propagationPolicy: Orphan\}': /,
    ],
    ['a JSON array', '[]', /annotation value '\[\]'/],
    ['a string gracePeriodSeconds', '{"gracePeriodSeconds":"5"}', /gracePeriodSeconds/],
    ['a fractional gracePeriodSeconds', '{"gracePeriodSeconds":1.5}', /gracePeriodSeconds/],
    ['an unknown propagationPolicy', '{"propagationPolicy":"Later"}', /propagationPolicy/],
    ['a non-string precondition', '{"preconditions":{"uid":5}}', /preconditions\.uid/],
  ])('rejects %s with a clear error', (_title, value, message) => {
    expect(() => parseDeleteOptions(withAnnotation(value))).toThrow(DeleteOptionsError);
    expect(() => parseDeleteOptions(withAnnotation(value))).toThrow(message);
  });
});
