import { describe, expect, it } from 'vitest';
import { renderedDifferences, type RenderedDifference } from './rendered-differences.js';

describe('renderedDifferences', () => {
  it.each<[string, unknown, unknown, RenderedDifference[]]>([
    ['equal objects', { data: { a: '1' } }, { data: { a: '1' } }, []],
    [
      'fields only the member has (status, server metadata, defaults)',
      { spec: { replicas: 2 } },
      { spec: { replicas: 2, strategy: { type: 'RollingUpdate' } }, status: { replicas: 2 }, metadata: { uid: 'u' } },
      [],
    ],
    [
      'a changed value',
      { data: { colour: 'blue' } },
      { data: { colour: 'red' } },
      [{ path: '/data/colour', rendered: 'blue', live: 'red' }],
    ],
    ['a field the member lacks', { data: { colour: 'blue' } }, { data: {} }, [{ path: '/data/colour', rendered: 'blue' }]],
    [
      'a key that needs JSON Pointer escapes',
      { metadata: { labels: { 'kubefed.io/managed': 'true', 'a~b': 'x' } } },
      { metadata: { labels: { 'kubefed.io/managed': 'false', 'a~b': 'x' } } },
      [{ path: '/metadata/labels/kubefed.io~1managed', rendered: 'true', live: 'false' }],
    ],
    [
      'list items compared field by field (defaults inside a container are no difference)',
      { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      { containers: [{ name: 'web', image: 'nginx:1.26', imagePullPolicy: 'IfNotPresent' }] },
      [{ path: '/containers/0/image', rendered: 'nginx:1.27', live: 'nginx:1.26' }],
    ],
    ['lists of another length as a whole', { args: ['a', 'b'] }, { args: ['a'] }, [{ path: '/args', rendered: ['a', 'b'], live: ['a'] }]],
    ['an object against a scalar', { spec: { x: 1 } }, { spec: 'none' }, [{ path: '/spec', rendered: { x: 1 }, live: 'none' }]],
    ['a null the member holds as a value', { data: null }, { data: { a: '1' } }, [{ path: '/data', rendered: null, live: { a: '1' } }]],
    ['different roots', 1, 2, [{ path: '/', rendered: 1, live: 2 }]],
  ])('finds the differences of %s', (_title, rendered, live, expected) => {
    expect(renderedDifferences(rendered, live)).toEqual(expected);
  });
});
