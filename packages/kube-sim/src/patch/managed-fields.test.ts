import { describe, expect, it } from 'vitest';
import { builtinResources } from '../resources/builtin-resources.js';
import type { KObject } from '../util/json.js';
import {
  fieldsOf,
  fromFieldsV1,
  listTypesFor,
  orderAppliedLists,
  pathString,
  toFieldsV1,
  trackApply,
  trackUpdate,
} from './managed-fields.js';

const deployments = builtinResources().find((d) => d.resource === 'deployments')!;
const shape = listTypesFor(deployments, deployments.versions[0]!);
const sep = '\u0000';
const now = new Date('2026-01-02T03:04:05.678Z');
const ctx = { manager: 'alice', apiVersion: 'apps/v1', shape, now, force: false };

const cm = (data: Record<string, string>, managedFields?: unknown[]): KObject => ({
  metadata: { name: 'x', namespace: 'ns', uid: 'u', ...(managedFields !== undefined ? { managedFields } : {}) },
  data,
});

describe('managed fields', () => {
  it.each([
    [['f:data', 'f:a'], '.data.a'],
    [['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:image'], '.spec.template.spec.containers[name="app"].image'],
    [['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'], '.spec.ports[port=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', 'v:"a.io/x"'], '.metadata.finalizers[="a.io/x"]'],
  ])('prints the path %j as %s', (elements, printed) => {
    expect(pathString(elements.join(sep))).toBe(printed);
  });

  it('collects leaves, keyed list items and set members, not identity metadata', () => {
    const fields = fieldsOf(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'x', namespace: 'ns', labels: { a: 'b' }, finalizers: ['f'] },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { spec: { containers: [{ name: 'app', image: 'i', ports: [{ containerPort: 80 }] }] } },
        },
      },
      shape,
    );
    expect([...fields.keys()].map(pathString).sort()).toEqual([
      '.metadata.finalizers[="f"]',
      '.metadata.labels.a',
      '.spec.selector',
      '.spec.template.spec.containers[name="app"]',
      '.spec.template.spec.containers[name="app"].image',
      '.spec.template.spec.containers[name="app"].name',
      '.spec.template.spec.containers[name="app"].ports[containerPort=80,protocol="TCP"]',
      '.spec.template.spec.containers[name="app"].ports[containerPort=80,protocol="TCP"].containerPort',
    ]);
  });

  it('writes FieldsV1 with `.` on owned nodes that have children, and reads it back', () => {
    const paths = [
      'f:data',
      'f:data\u0000f:a',
      'f:spec\u0000f:containers\u0000k:{"name":"app"}',
      'f:spec\u0000f:containers\u0000k:{"name":"app"}\u0000f:image',
    ];
    const v1 = toFieldsV1(paths);
    expect(v1).toEqual({
      'f:data': { '.': {}, 'f:a': {} },
      'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {} } } },
    });
    expect([...fromFieldsV1(v1)].sort()).toEqual([...paths].sort());
  });

  it('gives an update the fields it changed, taking them from their former owner', () => {
    const applied = trackApply(undefined, cm({ a: '1', b: '2' }), cm({ a: '1', b: '2' }), ctx);
    const edited = trackUpdate(applied, cm({ a: '9', b: '2' }, applied.metadata.managedFields), { ...ctx, manager: 'editor' });
    expect(edited.map((m) => [m['manager'], m['operation'], m['fieldsV1']])).toEqual([
      ['alice', 'Apply', { 'f:data': { 'f:b': {} } }],
      ['editor', 'Update', { 'f:data': { 'f:a': {} } }],
    ]);
  });

  it("refuses an apply that changes another manager's field, and removes what the applier dropped", () => {
    const live = trackApply(undefined, cm({ a: '1', b: '2' }), cm({ a: '1', b: '2' }), ctx);
    expect(() => trackApply(live, cm({ a: '2', b: '2' }), cm({ a: '2' }), { ...ctx, manager: 'bob' })).toThrow(
      'Apply failed with 1 conflict: conflict with "alice": .data.a',
    );
    const shrunk = trackApply(live, cm({ a: '1', b: '2' }), cm({ a: '1' }), ctx);
    expect(shrunk['data']).toEqual({ a: '1' });
  });

  it('orders an applied associative list as structured-merge-diff: items the configuration leaves out first', () => {
    const merged = { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } };
    orderAppliedLists(
      merged,
      { spec: { containers: [{ name: 'c' }, { name: 'a' }] } },
      { ...shape, listTypes: () => ({ type: 'map', keys: ['name'] }) },
    );
    expect(merged.spec.containers.map((c) => c.name)).toEqual(['b', 'c', 'a']);
  });
});
