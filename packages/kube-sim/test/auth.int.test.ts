import { authConformance } from './conformance/auth-conformance.js';
import { kubeSim } from './support/conformance-target.js';

authConformance(kubeSim);
