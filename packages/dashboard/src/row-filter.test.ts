import { describe, expect, it } from 'vitest';
// The page's own module (served as /assets/row-filter.js), tested here where vitest looks.
import { filterRows, STATUS_FILTERS, type RowFilter } from '../assets/row-filter.js';

const rows = [
  { id: 1, type: 'configmaps', namespace: 'shop', name: 'settings', problem: false },
  { id: 2, type: 'deployments.apps', namespace: 'shop', name: 'Web-Front', problem: true },
  { id: 3, type: 'deployments.apps', namespace: 'blog', name: 'web', problem: false },
  { id: 4, type: 'clusterroles.rbac.authorization.k8s.io', namespace: '', name: 'reader', problem: true },
];
const none: RowFilter = { type: '', namespace: '', name: '', status: '' };

describe('filterRows', () => {
  it.each<[string, Partial<RowFilter>, number[]]>([
    ['no filter', {}, [1, 2, 3, 4]],
    ['a type', { type: 'deployments.apps' }, [2, 3]],
    ['a namespace', { namespace: 'shop' }, [1, 2]],
    ['a name part, any case, trimmed', { name: ' WEB ' }, [2, 3]],
    ['rows with a problem', { status: 'problem' }, [2, 4]],
    ['rows all OK', { status: 'ok' }, [1, 3]],
    ['every filter at once', { type: 'deployments.apps', namespace: 'shop', name: 'front', status: 'problem' }, [2]],
    ['filters nothing matches', { type: 'configmaps', status: 'problem' }, []],
  ])('keeps the rows of %s, in order', (_title, filter, ids) => {
    expect(filterRows(rows, { ...none, ...filter }).map((r) => r.id)).toEqual(ids);
  });

  it('offers any, with a problem and all OK as status choices', () => {
    expect(STATUS_FILTERS.map(([value]) => value)).toEqual(['', 'problem', 'ok']);
  });
});
