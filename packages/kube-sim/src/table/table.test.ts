import { describe, expect, it } from 'vitest';
import { evalJsonPath } from './table.js';

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
