/**
 * A namespaced test CRD `widgets.<group>` with a structural schema, a status subresource,
 * printer columns and a short name; its group is unique per test run.
 */
import type { Json } from './conformance-target.js';

export function widgetGroup(suffix: string): string {
  return `c${suffix}.conformance.kubefed.io`;
}

export function widgetCrd(group: string): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wdg'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
            { name: 'Color', type: 'string', jsonPath: '.spec.color' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  properties: {
                    size: { type: 'integer', minimum: 1 },
                    color: { type: 'string', enum: ['red', 'green', 'blue'] },
                    tags: { type: 'array', items: { type: 'string' } },
                    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: {
                  type: 'object',
                  properties: { phase: { type: 'string' }, observed: { type: 'integer' } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

export function widget(group: string, namespace: string, name: string, spec: Record<string, unknown>): Json {
  return { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, namespace }, spec };
}
