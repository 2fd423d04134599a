import { structuralProblems } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { type OpenApiV3Document, templateSchemaFromCrd, templateSchemaFromOpenApi } from './template-schema.js';

const gvk = { group: 'apps', version: 'v1', kind: 'Deployment' };

// A trimmed-down version of what a real API server serves at /openapi/v3/apis/apps/v1.
const doc: OpenApiV3Document = {
  components: {
    schemas: {
      'io.k8s.api.apps.v1.Deployment': {
        type: 'object',
        description: 'Deployment enables declarative updates for Pods and ReplicaSets.',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], default: {} },
          spec: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }], default: {} },
          status: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentStatus' }], default: {} },
        },
        'x-kubernetes-group-version-kind': [{ group: 'apps', kind: 'Deployment', version: 'v1' }],
      },
      'io.k8s.api.apps.v1.DeploymentSpec': {
        type: 'object',
        required: ['selector', 'template'],
        properties: {
          replicas: { type: 'integer', format: 'int32' },
          policy: { type: 'string', enum: ['Always', 'Never'] },
          selector: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
          strategy: {
            type: 'object',
            properties: {
              rollingUpdate: {
                type: 'object',
                properties: { maxSurge: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString' } },
              },
            },
          },
          template: {
            type: 'object',
            properties: {
              metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
              spec: {
                type: 'object',
                properties: { nodeSelector: { type: 'object', additionalProperties: { type: 'string', default: '' } } },
              },
            },
          },
          raw: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension' },
          quantity: { oneOf: [{ type: 'string' }, { type: 'number' }] },
          port: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
          tree: { $ref: '#/components/schemas/Node' },
        },
      },
      'io.k8s.api.apps.v1.DeploymentStatus': { type: 'object', properties: { readyReplicas: { type: 'integer', format: 'int32' } } },
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', properties: { name: { type: 'string' } } },
      'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector': {
        type: 'object',
        properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string', default: '' } } },
        'x-kubernetes-map-type': 'atomic',
      },
      'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string' },
      'io.k8s.apimachinery.pkg.runtime.RawExtension': { type: 'object' },
      Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
    },
  },
};

describe('templateSchemaFromOpenApi', () => {
  it('resolves $refs into a structural schema, typed but keeping unknown fields, without required, defaults or enums', () => {
    const t = templateSchemaFromOpenApi(doc, gvk);
    expect(t.reason).toBeUndefined();
    expect(t.fromServer).toBe(true);
    expect(t.hasReplicas).toBe(true);
    expect(structuralProblems(t.schema, 'spec.template')).toEqual([]);
    expect(t.schema['x-kubernetes-preserve-unknown-fields']).toBe(true);
    const props = t.schema.properties!;
    expect(Object.keys(props).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(props['apiVersion']).toEqual({ type: 'string' });
    expect(props['metadata']).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(props['status']).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    const spec = props['spec']!;
    expect(spec.required).toBeUndefined();
    expect(spec['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(spec.properties!['replicas']).toEqual({ type: 'integer', format: 'int32' });
    expect(spec.properties!['policy']).toEqual({ type: 'string' });
    expect(spec.properties!['selector']).toEqual({
      type: 'object',
      properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-map-type': 'atomic',
    });
    expect(spec.properties!['strategy']!.properties!['rollingUpdate']!.properties!['maxSurge']).toEqual({
      'x-kubernetes-int-or-string': true,
    });
    expect(spec.properties!['quantity']).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec.properties!['port']).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(spec.properties!['raw']).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec.properties!['template']!.properties!['metadata']).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    // A recursive type stops at the first repetition.
    expect(spec.properties!['tree']!.properties!['children']!.items).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('takes a CRD-backed target from the CRD version of the target, keeping shape and types only', () => {
    const crd = {
      metadata: { name: 'widgets.example.com' },
      spec: {
        versions: [
          {
            name: 'v1alpha1',
            schema: {
              openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { old: { type: 'string' } } } } },
            },
          },
          {
            name: 'v1',
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  apiVersion: { type: 'string' },
                  metadata: { type: 'object' },
                  spec: {
                    type: 'object',
                    required: ['size'],
                    anyOf: [{ required: ['size'] }, { required: ['color'] }],
                    'x-kubernetes-validations': [{ rule: 'self.size > 0' }],
                    properties: {
                      size: { type: 'integer', minimum: 1, default: 1 },
                      color: { type: 'string', enum: ['red'], nullable: true },
                      port: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
                      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    },
                  },
                  status: { type: 'object', properties: { ready: { type: 'boolean' } } },
                },
              },
            },
          },
        ],
      },
    };
    const t = templateSchemaFromCrd(crd, 'v1');
    expect(t.fromServer).toBe(true);
    expect(t.hasReplicas).toBe(false);
    expect(structuralProblems(t.schema, 'spec.template')).toEqual([]);
    expect(t.schema.properties!['spec']).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        size: { type: 'integer' },
        color: { type: 'string', nullable: true },
        port: { 'x-kubernetes-int-or-string': true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    });
    expect(t.schema.properties!['status']).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(templateSchemaFromCrd(crd, 'v2').schema.properties!['spec']!.properties).toEqual({ old: { type: 'string' } });
    expect(templateSchemaFromCrd({ metadata: { name: 'x.example.com' }, spec: {} }, 'v1', true)).toMatchObject({
      fromServer: false,
      hasReplicas: true,
      reason: 'the CRD x.example.com has no openAPIV3Schema for version v1',
    });
  });

  it.each([
    ['no document', undefined, false, 'serves no OpenAPI v3 document for apps/v1'],
    ['no schema for the kind', { components: { schemas: {} } }, true, 'has no schema for kind Deployment'],
    [
      'an open schema (kube-sim built-ins)',
      {
        components: {
          schemas: { D: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-group-version-kind': [gvk] } },
        },
      },
      true,
      'is open',
    ],
  ] as const)('falls back to preserve-unknown-fields for %s, taking hasReplicas from the hint', (_what, d, hint, reason) => {
    const t = templateSchemaFromOpenApi(d, gvk, hint);
    expect(t.fromServer).toBe(false);
    expect(t.schema).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(t.hasReplicas).toBe(hint);
    expect(t.reason).toContain(reason);
  });
});
