import { federatedObjectBoundsConformance } from './conformance/federated-object-bounds-conformance.js';
import { kubefedAdmissionConformance } from './conformance/kubefed-admission-conformance.js';
import { kubeSim } from './support/conformance-target.js';

kubefedAdmissionConformance(kubeSim);
federatedObjectBoundsConformance(kubeSim);
