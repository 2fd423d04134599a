import { jsonEqual } from '@kubefed/client';

/** One field where the member copy does not hold what the control plane renders. */
export interface RenderedDifference {
  /** JSON Pointer of the field (the path syntax of overrides), e.g. `/spec/replicas`. */
  readonly path: string;
  /** The rendered value. */
  readonly rendered: unknown;
  /** The member's value; absent when the member lacks the field. */
  readonly live?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

function walk(rendered: unknown, live: unknown, path: string, out: RenderedDifference[]): void {
  if (isObject(rendered) && isObject(live)) {
    for (const [key, value] of Object.entries(rendered)) {
      const child = `${path}/${escape(key)}`;
      if (Object.prototype.hasOwnProperty.call(live, key)) walk(value, live[key], child, out);
      else out.push({ path: child, rendered: value });
    }
    return;
  }
  if (Array.isArray(rendered) && Array.isArray(live) && rendered.length === live.length) {
    rendered.forEach((value, i) => walk(value, live[i], `${path}/${i}`, out));
    return;
  }
  if (!jsonEqual(rendered, live)) out.push({ path: path === '' ? '/' : path, rendered, live });
}

/**
 * The fields the control plane renders that the member copy lacks or holds with another value.
 * Fields only the member has (status, server-set metadata, defaults the API server fills in)
 * are not differences; lists of equal length are compared item by item with the same rule (so
 * defaults inside a container do not count), lists of different length as a whole. Pure.
 */
export function renderedDifferences(rendered: unknown, live: unknown): RenderedDifference[] {
  const out: RenderedDifference[] = [];
  walk(rendered, live, '', out);
  return out;
}
