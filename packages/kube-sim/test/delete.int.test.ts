import { deleteConformance } from './conformance/delete-conformance.js';
import { kubeSim } from './support/conformance-target.js';

deleteConformance(kubeSim);
