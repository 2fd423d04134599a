import { watchConformance } from './conformance/watch-conformance.js';
import { kubeSim } from './support/conformance-target.js';

watchConformance(kubeSim);
