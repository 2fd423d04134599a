import { crdConformance } from './conformance/crd-conformance.js';
import { kubeSim } from './support/conformance-target.js';

crdConformance(kubeSim);
