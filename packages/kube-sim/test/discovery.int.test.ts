import { discoveryConformance } from './conformance/discovery-conformance.js';
import { kubeSim } from './support/conformance-target.js';

discoveryConformance(kubeSim);
