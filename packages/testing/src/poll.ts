/**
 * The poll policy of the integration and end-to-end suites: how long an eventual check may take
 * and how often it looks (`expect.poll(check, POLL)`, `vi.waitFor(check, POLL)`). A controller
 * manager usually converges well under a second; 30 s leaves room for a shared, busy CI machine
 * and for the real substrate. Checks that wait on something slower (a Helm install, pods on real
 * Nodes) say so with their own, longer timeout.
 */
export const POLL = { timeout: 30_000, interval: 100 } as const;
