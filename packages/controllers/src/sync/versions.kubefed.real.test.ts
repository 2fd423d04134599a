/**
 * Our version tracking against KubeFed v0.10.0's own code (vitest project `real`: needs
 * `npm run kubefed:build`). tools/kubefed/version-oracle runs KubeFed's `sync.GetTemplateHash`,
 * `sync.GetOverrideHash` (pkg/controller/sync/resource.go) and `util.ObjectVersion`
 * (pkg/controller/util/propagatedversion.go) on the same objects as `templateVersion`,
 * `overridesVersion` and `memberVersion`: the strings must be equal, as a PropagatedVersion one
 * of them wrote must be trusted by the other.
 */
import type { KubeObject } from '@kubefed/client';
import { askKubeFedVersionOracle, type VersionOracleAnswer } from '@kubefed/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { memberVersion, overridesVersion, templateVersion, type VersionSource } from './versions.js';

const federated = (spec: Record<string, unknown> | undefined): Record<string, unknown> => ({
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedConfigMap',
  metadata: { name: 'web', namespace: 'shop' },
  ...(spec === undefined ? {} : { spec }),
});

/** Federated objects: [title, object]. Everything goes to KubeFed as JSON text, as an API server sends it. */
const FEDERATED: [string, Record<string, unknown>][] = [
  ['KubeFed’s own test vector', federated({ template: { spec: { foo: null } } })],
  ['no spec', federated(undefined)],
  ['a spec without template or overrides', federated({ placement: { clusters: [{ name: 'c1' }] } })],
  ['an empty template', federated({ template: {} })],
  [
    'nested maps with unsorted keys',
    federated({
      template: {
        metadata: { labels: { z: '1', a: '2', M: '3' }, annotations: { 'b.example.com/x': 'y', 'a.example.com/x': '' } },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
        },
      },
    }),
  ],
  [
    'arrays: empty, nested, of maps, mixed',
    federated({
      template: { data: { empty: [], nested: [[1, 2], [], [[3]]], maps: [{ b: 1, a: 2 }, {}], mixed: [1, 'two', true, null, { k: 'v' }] } },
    }),
  ],
  [
    'keys sorted by their UTF-8 bytes',
    federated({
      template: { data: { b: '1', B: '2', é: '3', a: '4', Z: '5', '10': '6', '9': '7', '': '8', ß: '9', 日本: '10', '🚀': '11' } },
    }),
  ],
  [
    'unicode, HTML characters, escapes and control characters in strings',
    federated({
      template: {
        data: {
          accents: 'ünïcødé Ωmega',
          cjk: '日本語テキスト',
          emoji: '🚀✨👩‍💻',
          html: '<script>alert("&")</script>',
          separators: 'line\u2028paragraph\u2029end',
          control: 'bell\u0007nul\u0000esc\u001b del\u007f',
          whitespace: 'tab\tnewline\ncr\r',
          quotes: 'say "hi" \\ back\\slash /slash',
        },
      },
    }),
  ],
  [
    'numbers: integers, fractions, exponents, extremes',
    federated({
      template: {
        spec: {
          zero: 0,
          negative: -1,
          int: 42,
          int64: 123456789012,
          maxSafe: 9007199254740991,
          fraction: 1.5,
          tenth: 0.1,
          third: 1 / 3,
          small: 0.000001,
          smaller: 1e-7,
          big: 1e20,
          bigger: 1e21,
          tiny: 5e-324,
          huge: 1.7976931348623157e308,
          negativeFraction: -2.75,
        },
      },
    }),
  ],
  ['booleans and null', federated({ template: { spec: { on: true, off: false, nothing: null } } })],
  ['an empty overrides list', federated({ template: { data: { a: '1' } }, overrides: [] })],
  ['a cluster with an empty clusterOverrides list', federated({ overrides: [{ clusterName: 'c1', clusterOverrides: [] }] })],
  ['a cluster without clusterOverrides', federated({ overrides: [{ clusterName: 'c1' }] })],
  [
    'overrides with and without op, every kind of value',
    federated({
      template: { spec: { replicas: 1 } },
      overrides: [
        {
          clusterName: 'c2',
          clusterOverrides: [
            { path: '/spec/replicas', value: 5 },
            { op: 'add', path: '/spec/ratio', value: 1.5 },
            { op: 'remove', path: '/spec/paused' },
            { op: 'replace', path: '/spec/nothing', value: null },
            { op: '', path: '/spec/zero', value: 0 },
            { path: '/spec/false', value: false },
            { path: '/spec/empty', value: '' },
            { path: '/metadata/labels', value: { z: 'ü', a: '<&>', m: { y: 1, b: [2, { d: 1, c: 2 }] } } },
            { path: '/spec/list', value: [3, 'x', { b: 1, a: 2 }, [], {}] },
            { path: '/data/big', value: 1e21 },
          ],
        },
        { clusterName: 'c1', clusterOverrides: [{ op: 'add', path: '/data/emoji', value: '🚀' }] },
      ],
    }),
  ],
  [
    'override items with fields KubeFed does not know',
    federated({ overrides: [{ clusterName: 'c1', note: 'ignored', clusterOverrides: [{ path: '/a', value: 1, extra: true }] }] }),
  ],
];

const member = (metadata: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'web', namespace: 'shop', uid: '0b5e9a3e-8a0f-4f7e-9d38-3f1c2e7a9b10', ...metadata },
});

/** Member objects: [title, object]. */
const MEMBERS: [string, Record<string, unknown>][] = [
  ['with a generation', member({ generation: 3, resourceVersion: '1234' })],
  ['with generation 1', member({ generation: 1, resourceVersion: '7' })],
  ['with generation 0', member({ generation: 0, resourceVersion: '98765' })],
  ['without a generation', member({ resourceVersion: '42' })],
  ['without a generation or resourceVersion', member({})],
];

let federatedAnswers: VersionOracleAnswer[];
let memberAnswers: VersionOracleAnswer[];

beforeAll(async () => {
  federatedAnswers = await askKubeFedVersionOracle(FEDERATED.map(([, object]) => ({ federated: object })));
  memberAnswers = await askKubeFedVersionOracle(MEMBERS.map(([, object]) => ({ member: object })));
});

describe('templateVersion and overridesVersion equal KubeFed v0.10.0’s template and override hashes', () => {
  it.each(FEDERATED.map(([title, object], i) => [title, object, i] as const))('for %s', (_title, object, i) => {
    const source = object as VersionSource;
    expect({ templateHash: templateVersion(source), overrideHash: overridesVersion(source) }).toEqual(federatedAnswers[i]);
  });
});

describe('memberVersion equals KubeFed v0.10.0’s version string of a member object', () => {
  it.each(MEMBERS.map(([title, object], i) => [title, object, i] as const))('for an object %s', (_title, object, i) => {
    expect({ version: memberVersion(object as Pick<KubeObject, 'metadata'>) }).toEqual(memberAnswers[i]);
  });
});
