import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_FEDERATED_TYPES } from '../default-types.js';
import { validateFederatedTypeConfig } from '../federated-type-config.js';
import { defaultKubeFedConfigSpec, KUBEFED_CONFIG_DEFAULTS } from '../kubefed-config.js';
import type { CustomResourceDefinition } from './crd.js';
import { buildFederatedTypeConfig, buildFederatedTypeCrd } from './federated-type.js';
import { allCrds, CRDS_KUSTOMIZATION_FILE, generateCrdFiles, GENERATED_HEADER } from './generate.js';
import { obj, str, structuralProblems, type JsonSchemaProps } from './openapi.js';

const crdDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'deploy', 'crds');

function schemaOf(crd: CustomResourceDefinition): JsonSchemaProps {
  return crd.spec.versions[0]!.schema.openAPIV3Schema;
}

function nodeAt(schema: JsonSchemaProps, path: string): JsonSchemaProps | undefined {
  let node: JsonSchemaProps | undefined = schema;
  for (const seg of path.split('.')) node = seg === '[]' ? node?.items : node?.properties?.[seg];
  return node;
}

describe('CRD generation', () => {
  it('produces the same output every time', () => {
    expect(generateCrdFiles()).toEqual(generateCrdFiles());
  });

  it('matches the committed files in deploy/crds (run `npm run generate` when this fails)', () => {
    const fresh = generateCrdFiles();
    const committed = Object.fromEntries(
      readdirSync(crdDir)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => [f, readFileSync(join(crdDir, f), 'utf8')]),
    );
    expect(Object.keys(committed).sort(), 'deploy/crds has stale or missing files: run `npm run generate`').toEqual(
      Object.keys(fresh).sort(),
    );
    for (const [name, content] of Object.entries(fresh)) {
      expect(committed[name], `deploy/crds/${name} is out of date: run \`npm run generate\``).toBe(content);
    }
  });

  it('writes a kustomization.yaml that lists every CRD file and nothing else', () => {
    const files = generateCrdFiles();
    const kustomization = files[CRDS_KUSTOMIZATION_FILE];
    expect(kustomization?.startsWith(GENERATED_HEADER)).toBe(true);
    const doc = parse(kustomization ?? '');
    expect(doc).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' });
    expect(doc.resources).toEqual(Object.keys(files).filter((f) => f !== CRDS_KUSTOMIZATION_FILE));
    expect(doc.resources).toHaveLength(allCrds().length);
  });

  it('starts every file with the generated header and parses back to the CRD', () => {
    const crds = allCrds();
    for (const [name, content] of Object.entries(generateCrdFiles())) {
      if (name === CRDS_KUSTOMIZATION_FILE) continue;
      expect(content.startsWith(GENERATED_HEADER)).toBe(true);
      const doc = parse(content);
      expect(crds).toContainEqual(doc);
      expect(name).toBe(`${doc.spec.group}_${doc.spec.names.plural}.yaml`);
    }
  });

  it.each(allCrds().map((c) => [c.metadata.name, c] as const))('%s has a structural schema', (_name, crd) => {
    expect(structuralProblems(schemaOf(crd))).toEqual([]);
  });

  it.each(allCrds().map((c) => [c.metadata.name, c] as const))('%s has consistent names and the kubefed category', (_name, crd) => {
    expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.${crd.spec.group}`);
    expect(crd.spec.names.listKind).toBe(`${crd.spec.names.kind}List`);
    expect(crd.spec.names.singular).toBe(crd.spec.names.kind.toLowerCase());
    expect(crd.spec.names.categories).toEqual(['kubefed']);
    expect(crd.spec.versions).toHaveLength(1);
    // FederatedTypeConfig declares metadata.name so that its name rule reports errors there.
    const metadata =
      crd.spec.names.kind === 'FederatedTypeConfig' ? { type: 'object', properties: { name: { type: 'string' } } } : { type: 'object' };
    expect(schemaOf(crd).properties?.metadata).toEqual(metadata);
  });

  it.each([
    ['kubefedclusters.core.kubefed.io', 'Namespaced', ['kfc'], true],
    ['kubefedconfigs.core.kubefed.io', 'Namespaced', undefined, false],
    ['federatedtypeconfigs.core.kubefed.io', 'Namespaced', ['ftc'], true],
    ['propagatedversions.core.kubefed.io', 'Namespaced', undefined, true],
    ['clusterpropagatedversions.core.kubefed.io', 'Cluster', undefined, true],
    ['replicaschedulingpreferences.scheduling.kubefed.io', 'Namespaced', ['rsp'], true], // beyond KubeFed: the scheduling controller writes RSP status,
    ['federatedservicestatuses.core.kubefed.io', 'Namespaced', undefined, false],
    ['federateddeployments.types.kubefed.io', 'Namespaced', ['fdeploy'], true],
    ['federatednamespaces.types.kubefed.io', 'Namespaced', ['fns'], true],
    ['federatedclusterroles.types.kubefed.io', 'Cluster', undefined, true],
    ['federatedservices.types.kubefed.io', 'Namespaced', ['fsvc'], true],
  ])('%s is %s with short names %j and status subresource %s', (name, scope, shortNames, status) => {
    const crd = allCrds().find((c) => c.metadata.name === name)!;
    expect(crd.spec.scope).toBe(scope);
    expect(crd.spec.names.shortNames).toEqual(shortNames);
    expect(crd.spec.versions[0]!.subresources !== undefined).toBe(status);
  });

  it("gives KubeFedCluster KubeFed's AGE, READY and KUBERNETES-VERSION columns, then API-ENDPOINT in the wide output", () => {
    const crd = allCrds().find((c) => c.spec.names.kind === 'KubeFedCluster')!;
    expect(crd.spec.versions[0]!.additionalPrinterColumns).toEqual([
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
      { name: 'Kubernetes-Version', type: 'string', jsonPath: '.status.kubernetesVersion' },
      { name: 'API-Endpoint', type: 'string', jsonPath: '.spec.apiEndpoint', priority: 1 },
    ]);
  });

  it("defaults every KubeFedConfig field as KubeFed's mutating webhook did, except scope", () => {
    const spec = nodeAt(schemaOf(allCrds().find((c) => c.spec.names.kind === 'KubeFedConfig')!), 'spec')!;
    for (const [block, fields] of Object.entries(KUBEFED_CONFIG_DEFAULTS)) {
      expect(spec.properties?.[block]?.default, block).toEqual({});
      for (const [name, value] of Object.entries(fields))
        expect(spec.properties?.[block]?.properties?.[name]?.default, `${block}.${name}`).toEqual(value);
    }
    expect(spec.properties?.['featureGates']?.default).toEqual(defaultKubeFedConfigSpec({}).featureGates);
    expect(spec.properties?.['scope']?.default).toBeUndefined();
  });

  it('bounds the length of every string a CEL rule matches against a regular expression', () => {
    const unbounded: string[] = [];
    const visit = (node: JsonSchemaProps, path: string): void => {
      const rules = node['x-kubernetes-validations'] ?? [];
      if (node.type === 'string' && rules.some((r) => r.rule.includes('matches(')) && node.maxLength === undefined) unbounded.push(path);
      for (const [k, v] of Object.entries(node.properties ?? {})) visit(v, `${path}.${k}`);
      if (node.items !== undefined) visit(node.items, `${path}[*]`);
    };
    for (const crd of allCrds()) visit(schemaOf(crd), crd.metadata.name);
    expect(unbounded).toEqual([]);
  });

  it('ships a federated CRD for every default type', () => {
    const names = allCrds().map((c) => c.metadata.name);
    for (const t of DEFAULT_FEDERATED_TYPES) expect(names).toContain(`federated${t.pluralName}.types.kubefed.io`);
    expect(DEFAULT_FEDERATED_TYPES).toHaveLength(11);
  });
});

describe('buildFederatedTypeCrd', () => {
  const deployment = {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    pluralName: 'deployments',
    scope: 'Namespaced',
    shortNames: ['deploy'],
    hasReplicas: true,
  } as const;

  it('follows kubefedctl enable for a workload with replicas', () => {
    const crd = buildFederatedTypeCrd(deployment);
    expect(crd.metadata.name).toBe('federateddeployments.types.kubefed.io');
    expect(crd.spec.names.kind).toBe('FederatedDeployment');
    expect(crd.spec.versions[0]!.name).toBe('v1beta1');
    expect(schemaOf(crd).required).toEqual(['spec']);
    expect(nodeAt(schemaOf(crd), 'spec.retainReplicas')).toEqual({ type: 'boolean' });
    expect(nodeAt(schemaOf(crd), 'spec.template')).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(nodeAt(schemaOf(crd), 'spec.overrides.[].clusterOverrides.[].value')).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(nodeAt(schemaOf(crd), 'spec.overrides.[].clusterOverrides.[].op')?.pattern).toBe('^(add|remove|replace)?$');
    expect(nodeAt(schemaOf(crd), 'status.clusters.[].remoteStatus')).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(crd.spec.versions[0]!.additionalPrinterColumns?.[0]).toEqual({
      name: 'Propagation',
      type: 'string',
      jsonPath: ".status.conditions[?(@.type=='Propagation')].status",
    });
  });

  it('omits retainReplicas without replicas and honours a custom group, version and template schema', () => {
    const template = obj({ data: { type: 'object', additionalProperties: str() } });
    const crd = buildFederatedTypeCrd({
      group: 'example.com',
      version: 'v2',
      kind: 'Widget',
      pluralName: 'widgets',
      scope: 'Cluster',
      templateSchema: template,
      federatedGroup: 'federated.example.com',
      federatedVersion: 'v1',
    });
    expect(crd.metadata.name).toBe('federatedwidgets.federated.example.com');
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.versions[0]!.name).toBe('v1');
    expect(crd.spec.names.shortNames).toBeUndefined();
    expect(nodeAt(schemaOf(crd), 'spec.retainReplicas')).toBeUndefined();
    expect(nodeAt(schemaOf(crd), 'spec.template')).toEqual(template);
    expect(structuralProblems(schemaOf(crd))).toEqual([]);
  });

  it('makes FederatedNamespace namespaced although Namespace is cluster-scoped', () => {
    expect(
      buildFederatedTypeCrd({ group: '', version: 'v1', kind: 'Namespace', pluralName: 'namespaces', scope: 'Cluster' }).spec.scope,
    ).toBe('Namespaced');
  });
});

describe('buildFederatedTypeConfig', () => {
  it.each(DEFAULT_FEDERATED_TYPES.map((t) => [`${t.pluralName}${t.group === '' ? '' : '.' + t.group}`, t] as const))(
    'builds a valid FederatedTypeConfig named %s',
    (name, t) => {
      const ftc = buildFederatedTypeConfig(t);
      expect(ftc.metadata).toEqual({ name, namespace: 'kube-federation-system' });
      expect(validateFederatedTypeConfig(ftc).issues).toEqual([]);
      expect(ftc.spec.federatedType.kind).toBe(`Federated${t.kind}`);
      expect(ftc.spec.federatedType.pluralName).toBe(`federated${t.pluralName}`);
      expect(ftc.spec.propagation).toBe('Enabled');
      expect('group' in ftc.spec.targetType).toBe(t.group !== '');
    },
  );
});

describe('structuralProblems', () => {
  it.each<[string, JsonSchemaProps, string[]]>([
    ['a node without type', { type: 'object', properties: { a: {} } }, ['a: must have a type']],
    ['an array without items', { type: 'object', properties: { a: { type: 'array' } } }, ['a: an array must have items']],
    [
      'a required field that does not exist',
      { type: 'object', properties: {}, required: ['x'] },
      ['<root>: required field x is not in properties'],
    ],
    [
      'metadata declaring a label',
      { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } },
      ['metadata: must be {type: object}, with at most name and generateName as string properties'],
    ],
    [
      'metadata declaring its name',
      { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } } } },
      [],
    ],
    [
      'properties with additionalProperties',
      { type: 'object', properties: {}, additionalProperties: { type: 'string' } },
      ['<root>: properties and additionalProperties are mutually exclusive'],
    ],
  ])('finds %s', (_title, schema, problems) => {
    expect(structuralProblems(schema)).toEqual(problems);
  });
});
