import { patchConformance } from './conformance/patch-conformance.js';
import { kubeSim } from './support/conformance-target.js';

patchConformance(kubeSim);
