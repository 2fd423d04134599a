/** What the matrix filters read of a row (a `MatrixRow` of src/views.ts fits). */
export interface FilterableRow {
  readonly type: string;
  readonly namespace: string;
  readonly name: string;
  readonly problem: boolean;
}

/** The matrix filters; `''` passes every row. */
export interface RowFilter {
  readonly type: string;
  readonly namespace: string;
  readonly name: string;
  readonly status: '' | 'problem' | 'ok';
}

export const STATUS_FILTERS: readonly (readonly [RowFilter['status'], string])[];

export function filterRows<R extends FilterableRow>(rows: readonly R[], filter: RowFilter): R[];
