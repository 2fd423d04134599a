import { kubectlConformance } from './conformance/kubectl-conformance.js';
import { kubeSim } from './support/conformance-target.js';

kubectlConformance(kubeSim);
