import { describe, expect, it } from 'vitest';
import { normaliseOutput, oneLine, parseWalkthrough } from './walkthrough.js';

const fence = '```';

/** A page with a walk-through section made of `lines`, between an intro and a later section. */
function page(...lines: string[]): string {
  return ['# Guide', '', '## Walk-through', '', ...lines, '', '## Later', '', `${fence}sh`, 'not a step', fence, ''].join('\n');
}

describe('parseWalkthrough', () => {
  it('reads the commands, files and expected outputs of each step in order, and nothing before step 1', () => {
    const markdown = page(
      'With Helm:',
      `${fence}sh`,
      'helm install x',
      fence,
      '**1. Clusters.** Start them:',
      `${fence}sh`,
      'npx kube-sim \\',
      '  --clusters a,b',
      fence,
      '**2. Apply.** Save as `x.yaml`:',
      `${fence}yaml`,
      'kind: A',
      fence,
      `${fence}sh`,
      'kubectl apply -f x.yaml',
      'kubectl get a -o name',
      '# a/x',
      '',
      'kubectl get b',
      fence,
      '',
      fence,
      'NAME  AGE',
      'b     1s',
      fence,
    );
    const steps = parseWalkthrough(markdown);
    expect(steps).toEqual([
      {
        number: 1,
        title: 'Clusters',
        items: [{ kind: 'command', command: 'npx kube-sim \\\n  --clusters a,b', expected: undefined, line: 11 }],
      },
      {
        number: 2,
        title: 'Apply',
        items: [
          { kind: 'file', name: 'x.yaml', content: 'kind: A\n', line: 15 },
          { kind: 'command', command: 'kubectl apply -f x.yaml', expected: undefined, line: 19 },
          { kind: 'command', command: 'kubectl get a -o name', expected: 'a/x', line: 20 },
          { kind: 'command', command: 'kubectl get b', expected: 'NAME  AGE\nb     1s', line: 23 },
        ],
      },
    ]);
  });

  it.each([
    ['no section', '# Guide\n\nnothing\n', /no section "## Walk-through"/],
    ['no steps', page('Prose only.'), /has no steps/],
    ['steps out of order', page('**1. A.**', '**3. C.**'), /line 6: step 3 follows step 1/],
    [
      'an output block after prose',
      page('**1. A.**', `${fence}sh`, 'true', fence, 'It prints:', fence, 'x', fence),
      /line 10: an output block/,
    ],
    ['an output block with no command before it', page('**1. A.**', fence, 'x', fence), /line 6: an output block/],
    [
      'two expected outputs',
      page('**1. A.**', `${fence}sh`, 'echo x', '# x', fence, fence, 'x', fence),
      /a second expected output for `echo x`/,
    ],
    ['a yaml block nobody saves', page('**1. A.**', `${fence}yaml`, 'kind: A', fence), /line 6: a yaml block without "Save as/],
    ['a comment before any command', page('**1. A.**', `${fence}sh`, '# x', fence), /line 7: a comment before any command/],
    ['another language', page('**1. A.**', `${fence}json`, '{}', fence), /line 6: a ```json block/],
    ['an unclosed block', ['## Walk-through', '**1. A.**', `${fence}sh`, 'true'].join('\n'), /line 3: a code block that never ends/],
  ])('refuses %s, naming the line', (_, markdown, message) => {
    expect(() => parseWalkthrough(markdown)).toThrow(message);
  });

  it('reads the walk-through of docs/user-guide.md', async () => {
    const { readFile } = await import('node:fs/promises');
    const steps = parseWalkthrough(await readFile(new URL('../../../docs/user-guide.md', import.meta.url), 'utf8'));
    expect(steps.length).toBeGreaterThanOrEqual(13);
    expect(steps[0]?.items[0]).toMatchObject({ kind: 'command', command: expect.stringMatching(/^npx kube-sim/) as unknown });
  });
});

describe('oneLine', () => {
  it('joins continuation lines', () => {
    expect(oneLine('npx kube-sim \\\n  --clusters a \\\n  --http')).toBe('npx kube-sim --clusters a --http');
  });
});

describe('normaliseOutput', () => {
  it.each([
    ['a kubectl AGE cell', 'NAME   AGE   READY\nm1     15s   True', 'NAME   AGE   READY\nm1   <age>   True'],
    ['a two-unit age', 'NAME   AGE     READY\nm1     2m10s   True', 'NAME   AGE   READY\nm1   <age>   True'],
    ['the padding of columns', 'A    B\nx    yy', 'A   B\nx   yy'],
    ['trailing blanks and blank lines', '\nA  \nb\n\n', 'A\nb'],
    ['a generated name suffix', 'secret/member1-ns64r created', 'secret/member1-<random> created'],
  ])('replaces %s', (_, output, normalised) => {
    expect(normaliseOutput(output)).toBe(normalised);
  });

  it.each([
    ['words after a hyphen', 'nginx:1.27-alpine serviceaccount/member1-host kube-federation-system'],
    ['an AGE-like cell outside the AGE column', 'NAME   AGE   READY\n15s    <none>   True'],
    ['a Kubernetes version', 'v1.31.0'],
  ])('keeps %s', (_, output) => {
    expect(normaliseOutput(output)).toBe(output.replace(/ {2,}/g, '   '));
  });
});
