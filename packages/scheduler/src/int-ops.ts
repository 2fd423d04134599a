/**
 * Integer arithmetic the planner runs on. KubeFed computes in signed 64-bit integers with
 * truncating division; `numberOps` is exact while every intermediate value stays far below
 * 2^53 (the planner checks this before choosing it), `int64Ops` reproduces Go's int64
 * behaviour, wrap-around included, for every other input.
 */
export interface IntOps<N> {
  of(value: number): N;
  add(a: N, b: N): N;
  sub(a: N, b: N): N;
  mul(a: N, b: N): N;
  /** Division truncating toward zero, as Go's `/` on integers. */
  quo(a: N, b: N): N;
  min(a: N, b: N): N;
  lt(a: N, b: N): boolean;
  isPositive(a: N): boolean;
  toNumber(a: N): number;
}

export const numberOps: IntOps<number> = {
  of: (value) => value,
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  quo: (a, b) => Math.trunc(a / b),
  min: (a, b) => (a < b ? a : b),
  lt: (a, b) => a < b,
  isPositive: (a) => a > 0,
  toNumber: (a) => a,
};

const wrap = (value: bigint): bigint => BigInt.asIntN(64, value);

export const int64Ops: IntOps<bigint> = {
  of: (value) => wrap(BigInt(value)),
  add: (a, b) => wrap(a + b),
  sub: (a, b) => wrap(a - b),
  mul: (a, b) => wrap(a * b),
  // BigInt division truncates toward zero like Go; MinInt64 / -1 wraps to MinInt64 like Go.
  quo: (a, b) => wrap(a / b),
  min: (a, b) => (a < b ? a : b),
  lt: (a, b) => a < b,
  isPositive: (a) => a > 0n,
  toNumber: (a) => Number(a),
};
