import { workloadsConformance } from './conformance/workloads-conformance.js';
import { kubeSim } from './support/conformance-target.js';

workloadsConformance(kubeSim);
