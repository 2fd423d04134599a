/**
 * Placement of federated objects (docs/kubefed-compatibility.md §4.4.3, §4.4.4) as pure functions: shared by
 * the sync controller (where copies go) and the replica scheduling controller (which clusters
 * an RSP may plan over). Neither controller imports the other; both import this.
 */
export { ComputePlacementError } from './errors.js';
export {
  computePlacement,
  computeSelectorPlacement,
  effectivePlacement,
  isNamespaceType,
  qualifiedName,
  type EffectivePlacement,
  type EffectivePlacementInput,
  type PlacementCluster,
  type PlacementSource,
} from './placement.js';
