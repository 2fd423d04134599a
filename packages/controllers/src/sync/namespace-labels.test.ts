import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { namespaceLabels } from './namespace-labels.js';

const ns = (labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'n', ...(labels ? { labels } : {}) },
});
const ENFORCE = 'pod-security.kubernetes.io/enforce';

describe('namespaceLabels', () => {
  it.each<[string, Record<string, string> | undefined, Record<string, string> | undefined, boolean, Record<string, string>, string[]]>([
    [
      'keeps the member’s labels and adds the template’s',
      { team: 'a', env: 'dev' },
      { owner: 'me', env: 'prod' },
      false,
      { team: 'a', env: 'prod', owner: 'me' },
      [],
    ],
    ['creates with the template’s labels', undefined, { owner: 'me' }, false, { owner: 'me' }, []],
    [
      'keeps the member’s Pod Security level against the template',
      { [ENFORCE]: 'restricted' },
      { [ENFORCE]: 'privileged' },
      false,
      { [ENFORCE]: 'restricted' },
      [ENFORCE],
    ],
    ['sets no Pod Security label the member lacks', undefined, { [ENFORCE]: 'privileged', owner: 'me' }, false, { owner: 'me' }, [ENFORCE]],
    [
      'keeps a Pod Security label the template does not name',
      { [ENFORCE]: 'baseline' },
      { owner: 'me' },
      false,
      { [ENFORCE]: 'baseline', owner: 'me' },
      [],
    ],
    [
      'refuses nothing when the template asks for what the member has',
      { [ENFORCE]: 'baseline' },
      { [ENFORCE]: 'baseline' },
      false,
      { [ENFORCE]: 'baseline' },
      [],
    ],
    [
      'sets Pod Security labels when allowed',
      { [ENFORCE]: 'restricted' },
      { [ENFORCE]: 'privileged' },
      true,
      { [ENFORCE]: 'privileged' },
      [],
    ],
  ])('%s', (_title, had, asked, allowed, labels, refused) => {
    expect(namespaceLabels(ns(asked), had === undefined ? undefined : ns(had), allowed)).toEqual({ labels, refused });
  });
});
