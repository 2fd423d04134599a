import { kubefedAdmissionConformance } from './conformance/kubefed-admission-conformance.js';
import { kubeSim } from './support/conformance-target.js';

kubefedAdmissionConformance(kubeSim);
