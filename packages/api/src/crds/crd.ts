/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition shape we generate, and a builder for the
 * single-version CRDs KubeFed uses.
 */
import { KUBEFED_CATEGORY } from '../constants.js';
import type { JsonSchemaProps } from './openapi.js';

/** One additional printer column. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** An apiextensions.k8s.io/v1 CustomResourceDefinition (the fields we produce). */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: JsonSchemaProps };
      subresources?: { status?: Record<string, never> };
      additionalPrinterColumns?: PrinterColumn[];
    }[];
  };
}

/** Options of {@link buildCrd}. */
export interface BuildCrdOptions {
  group: string;
  version: string;
  kind: string;
  plural: string;
  scope: 'Namespaced' | 'Cluster';
  /** Root OpenAPI v3 schema (structural). */
  schema: JsonSchemaProps;
  /** Default: none. */
  shortNames?: readonly string[];
  /** Enable the status subresource. Default: false. */
  status?: boolean;
  /** Printer columns. Default: none (kubectl shows NAME and AGE). */
  printerColumns?: readonly PrinterColumn[];
}

/** Builds a single-version CRD (served, storage) with category `kubefed`. */
export function buildCrd(o: BuildCrdOptions): CustomResourceDefinition {
  const version: CustomResourceDefinition['spec']['versions'][number] = {
    name: o.version,
    served: true,
    storage: true,
    schema: { openAPIV3Schema: o.schema },
  };
  if (o.status === true) version.subresources = { status: {} };
  if (o.printerColumns !== undefined && o.printerColumns.length > 0)
    version.additionalPrinterColumns = o.printerColumns.map((c) => ({ ...c }));
  const names: CustomResourceDefinition['spec']['names'] = {
    kind: o.kind,
    listKind: `${o.kind}List`,
    plural: o.plural,
    singular: o.kind.toLowerCase(),
  };
  if (o.shortNames !== undefined && o.shortNames.length > 0) names.shortNames = [...o.shortNames];
  names.categories = [KUBEFED_CATEGORY];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.${o.group}` },
    spec: { group: o.group, names, scope: o.scope, versions: [version] },
  };
}

/** The AGE column every kubectl listing shows. */
export const AGE_COLUMN: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
