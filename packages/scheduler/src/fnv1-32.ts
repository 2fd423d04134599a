const FNV32_OFFSET_BASIS = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;
const utf8 = new TextEncoder();

/**
 * 32-bit FNV-1 hash (multiply by the prime, THEN xor the byte; not FNV-1a) of the UTF-8 bytes
 * of `data`, as Go's `hash/fnv.New32()` computes it. Returns an unsigned 32-bit integer.
 *
 * `seed` continues a running hash: `fnv1_32(key, fnv1_32(name))` equals the hash of the bytes
 * of `name` immediately followed by the bytes of `key`, which is how KubeFed's planner orders
 * clusters of equal weight. Defaults to the FNV offset basis 0x811c9dc5 (the hash of '').
 */
export function fnv1_32(data: string | Uint8Array, seed: number = FNV32_OFFSET_BASIS): number {
  let hash = seed >>> 0;
  if (typeof data === 'string') {
    // ASCII strings (every Kubernetes name) are their own UTF-8 bytes: skip the encoder.
    let i = 0;
    for (; i < data.length; i++) {
      const code = data.charCodeAt(i);
      if (code > 0x7f) break;
      hash = Math.imul(hash, FNV32_PRIME) ^ code;
    }
    if (i === data.length) return hash >>> 0;
    return hashBytes(utf8.encode(data.slice(i)), hash >>> 0);
  }
  return hashBytes(data, hash);
}

function hashBytes(bytes: Uint8Array, seed: number): number {
  let hash = seed;
  for (let i = 0; i < bytes.length; i++) {
    hash = Math.imul(hash, FNV32_PRIME) ^ (bytes[i] ?? 0);
  }
  return hash >>> 0;
}
