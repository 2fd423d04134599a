/**
 * `@kubefed/runtime/testing`: in-memory implementations of the runtime's own interfaces and a
 * clock, for tests only (never imported by library code): a `FakeClock`, an
 * `InMemoryListerWatcher` (with `FakeApiError`), an `InMemoryLeaseClient`, and a
 * `capturedLogger` that keeps what was logged.
 */
export { FakeClock, flushMicrotasks } from './fake-clock.js';
export { InMemoryListerWatcher, FakeApiError } from './in-memory-lister-watcher.js';
export { InMemoryLeaseClient } from './in-memory-lease-client.js';
export { capturedLogger } from './captured-logger.js';
