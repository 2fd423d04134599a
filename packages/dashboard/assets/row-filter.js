// The filters of the Federated objects matrix. A plain module without imports so the page and
// its unit test (src/row-filter.test.ts) run the same code; types in row-filter.d.ts.

/** The status filter's choices: value and label. */
export const STATUS_FILTERS = [
  ['', 'any'],
  ['problem', 'with a problem'],
  ['ok', 'all OK'],
];

/**
 * The rows that pass every filter: type (FTC name, exact), namespace (exact), name (contains,
 * case-insensitive), status (`problem`: the row's `problem` flag; `ok`: its negation). An empty
 * filter value passes every row. Keeps the rows' order.
 */
export function filterRows(rows, filter) {
  const name = filter.name.trim().toLowerCase();
  return rows.filter((r) => {
    if (filter.type !== '' && r.type !== filter.type) return false;
    if (filter.namespace !== '' && r.namespace !== filter.namespace) return false;
    if (name !== '' && !r.name.toLowerCase().includes(name)) return false;
    if (filter.status === 'problem' && !r.problem) return false;
    if (filter.status === 'ok' && r.problem) return false;
    return true;
  });
}
