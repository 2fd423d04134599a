import { describe, expect, it } from 'vitest';
import { configKeyErrors, dataKeyCauses, labelValueErrors, metadataCauses, qualifiedNameErrors } from './metadata-validation.js';

const nameRegex =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('metadata validation', () => {
  it.each([
    ['app', []],
    ['example.com/app', []],
    ['app.kubernetes.io/name', []],
    ['bad key', [`name part ${nameRegex}`]],
    ['/app', ['prefix part must be non-empty']],
    [
      'Example.com/app',
      [
        "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    ['a/b/c', [`a qualified name ${nameRegex} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]],
    ['x'.repeat(64), ['name part must be no more than 63 characters']],
  ])('checks the qualified name %j', (value, errors) => {
    expect(qualifiedNameErrors(value)).toEqual(errors);
  });

  it.each([
    ['', 0],
    ['v1.2_3-x', 0],
    ['-x', 1],
    ['has space', 1],
    ['x'.repeat(64), 1],
  ])('checks the label value %j', (value, count) => {
    expect(labelValueErrors(value)).toHaveLength(count);
  });

  it.each([
    ['key.name', []],
    [
      'a b',
      [
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      ],
    ],
    ['..secret', ["must not start with '..'"]],
    ['.', ["must not be '.'"]],
  ])('checks the config key %j', (value, errors) => {
    expect(configKeyErrors(value)).toEqual(errors);
  });

  it('names metadata.labels and metadata.annotations, and limits annotations to 256 KiB', () => {
    expect(metadataCauses({ labels: { ok: 'has space' }, annotations: { 'Mixed.Case/OK': 'x' } }).map((c) => c.field)).toEqual([
      'metadata.labels',
    ]);
    expect(metadataCauses({ annotations: { a: 'x'.repeat(256 * 1024) } })).toEqual([
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 262144 bytes', field: 'metadata.annotations' },
    ]);
  });

  it('names the bad key of data and binaryData, and a key in both', () => {
    expect(dataKeyCauses({ data: { 'a b': '1', dup: 'x' }, binaryData: { dup: 'eA==' } }, true).map((c) => c.field)).toEqual([
      'data[a b]',
      'data[dup]',
    ]);
    expect(dataKeyCauses({ data: { dup: 'eA==' }, binaryData: { dup: 'eA==' } }, false)).toEqual([]);
  });
});
