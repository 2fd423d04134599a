import { randomBytes } from 'node:crypto';

/**
 * A name that is unique per call and valid as a Kubernetes name, BullMQ prefix and Redis key
 * part: `<base>-<8 hex chars>`, lowercased, characters outside `[a-z0-9-]` replaced by `-`,
 * at most 63 characters (the base is shortened, the random suffix is kept).
 */
export function uniqueName(base = 'test'): string {
  const suffix = randomBytes(4).toString('hex');
  const cleaned = base
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const head = (cleaned === '' ? 'test' : cleaned).slice(0, 63 - suffix.length - 1).replace(/-+$/, '');
  return `${head}-${suffix}`;
}
