import { describe, expect, it } from 'vitest';
import { evalJsonPath } from './cell-values.js';
import { customResourceCell } from './table.js';

const obj = {
  spec: { replicas: 3 },
  metadata: { labels: { 'app.kubernetes.io/name': 'web', tier: 'front' } },
  status: {
    conditions: [
      { type: 'Offline', status: 'False' },
      { type: 'Ready', status: 'True' },
    ],
  },
};

describe('evalJsonPath', () => {
  it.each([
    ['.spec.replicas', 3],
    ['{.spec.replicas}', 3],
    ['.metadata.labels.tier', 'front'],
    ['.status.conditions[0].type', 'Offline'],
    ['.status.conditions[-1].type', 'Ready'],
    [".status.conditions[?(@.type=='Ready')].status", 'True'],
    ['.status.conditions[?(@.type=="Ready")].status', 'True'],
    ['.status.conditions[?(@.type == "Offline")].status', 'False'],
    [".status.conditions[?(@.type=='Missing')].status", undefined],
    ['.spec.missing', undefined],
  ])('evaluates %s', (path, expected) => {
    expect(evalJsonPath(obj, path)).toEqual(expected);
  });
});

describe('customResourceCell', () => {
  const now = Date.parse('2024-01-01T00:01:00Z');
  it.each([
    ['integer', '.spec.size', 3.7, 3],
    ['integer', '.spec.size', 'big', null],
    ['integer', '.spec.size', undefined, null],
    ['number', '.spec.ratio', 0.5, 0.5],
    ['number', '.spec.ratio', 'half', null],
    ['boolean', '.spec.on', true, true],
    ['boolean', '.spec.on', 'yes', null],
    ['string', '.spec.color', 'red', 'red'],
    ['string', '.spec.color', '', ''],
    ['string', '.spec.color', 5, '5'],
    ['string', '.spec.color', true, 'true'],
    ['string', '.spec.color', undefined, null],
    ['string', '.spec.list', ['a', 'b'], '["a","b"]'],
    ['string', '.spec.list[*]', ['a', 'b'], 'a'],
    ['string', '.spec.list[*]', [], null],
    ['string', '.spec.obj', { k: 'v' }, '{"k":"v"}'],
    ['date', '.spec.when', '2024-01-01T00:00:00Z', '60s'],
    ['date', '.spec.when', 'soon', '<invalid>'],
    ['date', '.spec.when', undefined, null],
  ])('renders a %s column %s holding %j as %j', (type, jsonPath, found, expected) => {
    expect(customResourceCell({ type, jsonPath }, found, now)).toEqual(expected);
  });
});
