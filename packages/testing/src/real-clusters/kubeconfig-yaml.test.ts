import { describe, expect, it } from 'vitest';
import { Kubeconfig } from '@kubefed/client';
import { kubeconfigYaml, type JsonValue } from './kubeconfig-yaml.js';

describe('kubeconfigYaml', () => {
  it.each<[string, JsonValue, string]>([
    ['a scalar', 'x', '"x"\n'],
    ['a flat mapping', { a: 1, b: true, c: null }, 'a: 1\nb: true\nc: null\n'],
    ['empty collections inline', { m: {}, l: [] }, 'm: {}\nl: []\n'],
    ['keys that need quoting', { 'current-context': 'a', 'a b': 'c', '1x': 2 }, 'current-context: "a"\n"a b": "c"\n"1x": 2\n'],
    [
      'a sequence of mappings',
      { items: [{ name: 'a', nested: { k: 'v' } }, 'plain'] },
      'items:\n  - name: "a"\n    nested:\n      k: "v"\n  - "plain"\n',
    ],
    ['a sequence of sequences', [[1, 2], [3]], '- - 1\n  - 2\n- - 3\n'],
    [
      'strings YAML would misread',
      { s: 'yes', t: '0123', u: 'a: b # c', v: 'line\nbreak' },
      's: "yes"\nt: "0123"\nu: "a: b # c"\nv: "line\\nbreak"\n',
    ],
  ])('writes %s', (_, value, yaml) => {
    expect(kubeconfigYaml(value)).toBe(yaml);
  });

  it('writes a kubeconfig that the client reads back', () => {
    const yaml = kubeconfigYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'one', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } },
        { name: 'two', cluster: { server: 'https://127.0.0.1:2', 'insecure-skip-tls-verify': true } },
      ],
      users: [
        { name: 'one', user: { token: 'a' } },
        { name: 'two', user: { token: 'b' } },
      ],
      contexts: [
        { name: 'one', context: { cluster: 'one', user: 'one' } },
        { name: 'two', context: { cluster: 'two', user: 'two' } },
      ],
      'current-context': 'two',
    });
    const kubeconfig = Kubeconfig.fromString(yaml);
    expect(kubeconfig.currentContext).toBe('two');
    expect(kubeconfig.contexts().map((c) => [c.name, c.server])).toEqual([
      ['one', 'https://127.0.0.1:1'],
      ['two', 'https://127.0.0.1:2'],
    ]);
  });
});
