import { describe, expect, it } from 'vitest';
import { builtinResources } from '../resources/builtin-resources.js';
import { BuiltinSchemas, OBJECT_META } from './builtin-schemas.js';

describe('BuiltinSchemas', () => {
  it.each(builtinResources().filter((d) => d.virtual !== true))(
    'has the published schema of $kind (else run npm run generate:openapi -w @kubefed/kube-sim)',
    (def) => {
      const version = def.versions[0]!.name;
      const gvPath = def.group === '' ? `api/${version}` : `apis/${def.group}/${version}`;
      expect(BuiltinSchemas.load().nameOf(gvPath, { group: def.group, version, kind: def.kind })).toBeDefined();
    },
  );

  it('gives documents of custom resources ObjectMeta with the schemas it refers to', () => {
    const meta = BuiltinSchemas.load().objectMeta();
    expect(Object.keys(meta)).toContain(OBJECT_META);
    expect(Object.keys(meta)).toContain('io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry');
  });
});
