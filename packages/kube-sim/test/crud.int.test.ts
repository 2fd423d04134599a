import { crudConformance } from './conformance/crud-conformance.js';
import { kubeSim } from './support/conformance-target.js';

crudConformance(kubeSim);
