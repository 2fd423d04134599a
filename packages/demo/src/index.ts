/**
 * @kubefed/demo: the local federation demo (`npm run demo`). `main.ts` is the process; `demo.ts`
 * applies the samples in `samples/` and decides when the demo has converged.
 */
export { applyObject, DEMO_NAMESPACE, demoState, labelRegions, readSamples, type DemoState } from './demo.js';
