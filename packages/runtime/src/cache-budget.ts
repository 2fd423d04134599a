/**
 * What one cluster's informers may hold in this process (docs/operations.md "Member cache
 * budget"): a member that lists or watches more than this, whether it is big or hostile (an
 * endless paged list, an endless watch, copies with huge annotations), is cut off instead of
 * taking the process's memory. The {@link Fleet} gives every member one {@link CacheBudget}.
 */
import { RuntimeError } from './errors.js';

/** The limits of a {@link CacheBudget}. */
export interface CacheBudgetLimits {
  /** Objects cached (and being listed) across the cluster's informers. */
  readonly maxObjects: number;
  /** Their approximate size as JSON ({@link approximateJsonBytes}). */
  readonly maxBytes: number;
  /** Pages of one list (a server that answers `continue` forever is cut off here). */
  readonly maxListPages: number;
}

/** Default limits of a member's cache: 100,000 objects, 64 MiB, 1,000 pages per list. */
export const DEFAULT_MEMBER_CACHE_BUDGET: CacheBudgetLimits = Object.freeze({
  maxObjects: 100_000,
  maxBytes: 64 * 1024 * 1024,
  maxListPages: 1_000,
});

/** A cluster's informers went past their {@link CacheBudget}; the message names the cluster, the informer and the limit. */
export class CacheBudgetExceededError extends RuntimeError {
  readonly cluster: string;

  constructor(message: string, options: { cluster: string }) {
    super(message);
    this.cluster = options.cluster;
  }
}

/** One informer's share of its cluster's budget: what its store holds plus the list it is reading. */
export interface BudgetAccount {
  readonly maxListPages: number;
  /**
   * Sets what the informer's list in progress holds (0, 0 once it replaced the store) or, with
   * `store`, what its store holds.
   *
   * @throws CacheBudgetExceededError when the share grows and the cluster's total would pass a
   * limit: the share is then left as it was (the budget's `onExceeded` has been called). Never
   * when it shrinks.
   */
  hold(part: 'list' | 'store', objects: number, bytes: number): void;
  /** Pages of one list went past `maxListPages`: records it and throws CacheBudgetExceededError. */
  tooManyPages(pages: number): never;
  /** Gives the share back (the informer stopped). */
  release(): void;
}

interface Share {
  list: { objects: number; bytes: number };
  store: { objects: number; bytes: number };
}

/**
 * The cache budget of one cluster: the sum of its informers' {@link BudgetAccount}s, checked
 * against the limits on every change. The first time a limit is passed, `onExceeded` gets the
 * error (the Fleet disengages the member); every later change past a limit throws it again, so
 * that the informer stops growing until it is stopped.
 */
export class CacheBudget {
  readonly #shares = new Map<string, Share>();
  #objects = 0;
  #bytes = 0;
  #exceeded: CacheBudgetExceededError | undefined;

  constructor(
    readonly cluster: string,
    readonly limits: CacheBudgetLimits,
    private readonly onExceeded: (err: CacheBudgetExceededError) => void,
  ) {}

  /** Objects held now across the cluster's informers. */
  get objects(): number {
    return this.#objects;
  }

  /** Their approximate JSON bytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The error of the first limit passed, if any. */
  get exceeded(): CacheBudgetExceededError | undefined {
    return this.#exceeded;
  }

  /** The account of the informer `informer` (its name, as in logs). */
  account(informer: string): BudgetAccount {
    const share: Share = { list: { objects: 0, bytes: 0 }, store: { objects: 0, bytes: 0 } };
    this.#shares.set(informer, share);
    return {
      maxListPages: this.limits.maxListPages,
      hold: (part, objects, bytes) => {
        const held = share[part];
        const totalObjects = this.#objects + objects - held.objects;
        const totalBytes = this.#bytes + bytes - held.bytes;
        if (objects > held.objects || bytes > held.bytes) this.#check(informer, totalObjects, totalBytes);
        this.#objects = totalObjects;
        this.#bytes = totalBytes;
        held.objects = objects;
        held.bytes = bytes;
      },
      tooManyPages: (pages) => {
        throw this.#exceed(
          `member cluster ${this.cluster} answered more than ${this.limits.maxListPages} pages for one list of ${informer} (${pages} so far); it is not used until it answers within its budget`,
        );
      },
      release: () => {
        if (this.#shares.get(informer) !== share) return;
        this.#shares.delete(informer);
        this.#objects -= share.list.objects + share.store.objects;
        this.#bytes -= share.list.bytes + share.store.bytes;
      },
    };
  }

  /** Throws (and tells the owner, the first time) when `objects` or `bytes` are past a limit. */
  #check(informer: string, objects: number, bytes: number): void {
    const { maxObjects, maxBytes } = this.limits;
    if (objects > maxObjects)
      throw this.#exceed(
        `member cluster ${this.cluster} holds more than ${maxObjects} objects in this controller manager's caches (${objects}, listing or watching ${informer}); it is not used until it fits its budget`,
      );
    if (bytes > maxBytes)
      throw this.#exceed(
        `member cluster ${this.cluster} holds more than ${formatBytes(maxBytes)} in this controller manager's caches (${formatBytes(bytes)}, listing or watching ${informer}); it is not used until it fits its budget`,
      );
  }

  #exceed(message: string): CacheBudgetExceededError {
    if (this.#exceeded !== undefined) return this.#exceeded;
    const err = new CacheBudgetExceededError(message, { cluster: this.cluster });
    this.#exceeded = err;
    this.onExceeded(err);
    return err;
  }
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}

/**
 * The length of `value` written as compact JSON, estimated in one walk without writing it
 * (string lengths in UTF-16 units): what a cached object costs, to compare with
 * a budget.
 */
export function approximateJsonBytes(value: unknown): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 2;
    else if (typeof v === 'number') total += String(v).length;
    else if (typeof v === 'boolean') total += v ? 4 : 5;
    else if (v === null || v === undefined) total += 4;
    else if (Array.isArray(v)) {
      total += 2 + v.length;
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object') {
      total += 2;
      for (const [k, item] of Object.entries(v)) {
        total += k.length + 4;
        stack.push(item);
      }
    }
  }
  return total;
}
