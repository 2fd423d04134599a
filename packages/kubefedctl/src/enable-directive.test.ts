import { describe, expect, it } from 'vitest';
import { parseEnableTypeDirectives } from './enable-directive.js';

const header = 'apiVersion: core.kubefed.io/v1beta1\nkind: EnableTypeDirective\n';

describe('parseEnableTypeDirectives', () => {
  it("reads KubeFed's directive file with the defaults of the flags", () => {
    expect(parseEnableTypeDirectives(`${header}metadata:\n  name: deployments.apps\n`, 'd.yaml')).toEqual([
      { type: 'deployments.apps', targetVersion: undefined, federatedGroup: 'types.kubefed.io', federatedVersion: 'v1beta1' },
    ]);
  });

  it('takes the spec fields and every document of the file', () => {
    const text = `${header}metadata: {name: widgets.example.com}\nspec: {targetVersion: v2, federatedGroup: fed.example.com, federatedVersion: v1}\n---\n---\n${header}metadata: {name: configmaps}\n`;
    expect(parseEnableTypeDirectives(text, 'd.yaml')).toEqual([
      { type: 'widgets.example.com', targetVersion: 'v2', federatedGroup: 'fed.example.com', federatedVersion: 'v1' },
      { type: 'configmaps', targetVersion: undefined, federatedGroup: 'types.kubefed.io', federatedVersion: 'v1beta1' },
    ]);
  });

  it.each([
    [
      'a wrong kind',
      'apiVersion: core.kubefed.io/v1beta1\nkind: FederatedTypeConfig\nmetadata: {name: x}\n',
      'd.yaml: document 1 is not a valid EnableTypeDirective: kind: Invalid input: expected "EnableTypeDirective"',
    ],
    [
      'a wrong apiVersion',
      'apiVersion: v1\nkind: EnableTypeDirective\nmetadata: {name: x}\n',
      'd.yaml: document 1 is not a valid EnableTypeDirective: apiVersion: Invalid input: expected "core.kubefed.io/v1beta1"',
    ],
    [
      'no name',
      `${header}metadata: {}\n`,
      'document 1 is not a valid EnableTypeDirective: metadata.name: Invalid input: expected string, received undefined',
    ],
    ['an empty name', `${header}metadata: {name: ""}\n`, 'metadata.name: the type to enable is required'],
    ['a misspelt spec field', `${header}metadata: {name: x}\nspec: {federatedGroups: a.io}\n`, 'spec: Unrecognized key: "federatedGroups"'],
    [
      'a spec field of the wrong type',
      `${header}metadata: {name: x}\nspec: {targetVersion: 2}\n`,
      'spec.targetVersion: Invalid input: expected string, received number',
    ],
    [
      'the second document',
      `${header}metadata: {name: x}\n---\nkind: EnableTypeDirective\n`,
      'd.yaml: document 2 is not a valid EnableTypeDirective: apiVersion:',
    ],
    [
      'a list instead of an object',
      '- a\n- b\n',
      'd.yaml: document 1 is not a valid EnableTypeDirective: <document>: Invalid input: expected object, received array',
    ],
    ['broken YAML', 'kind: [\n', 'd.yaml: document 1 is not valid YAML:'],
    ['an empty file', '', 'd.yaml: no EnableTypeDirective found'],
  ])('refuses %s, naming the file, document and field', (_what, text, message) => {
    expect(() => parseEnableTypeDirectives(text, 'd.yaml')).toThrow(message);
  });
});
