/**
 * @kubefed/scheduler: KubeFed-compatible replica planning as pure functions.
 *
 * Start with `planReplicas` (plan-replicas.ts, the bit-exact port of KubeFed's planner, whose
 * steps live in planner-core.ts), then `explainPlan` (why each cluster got its number), then
 * the inputs the ReplicaSchedulingPreference controller derives from member clusters:
 * `analyzePods` and `clustersReplicaState` (replica-state.ts).
 */
export { fnv1_32 } from './fnv1-32.js';
export { InvalidPlanInputError, PlanNotConvergingError, SchedulerError } from './errors.js';
export type { ClusterPreferences, PlanInput, PlanResult, PreferenceSource } from './plan-input.js';
export { planReplicas } from './plan-replicas.js';
export { explainPlan } from './explain-plan.js';
export type { ClusterExplanation, PlanExplanation, PlanReason } from './explain-plan.js';
export { analyzePods, UNSCHEDULABLE_THRESHOLD_MS } from './pod-analyzer.js';
export type { PodAnalysis, PodConditionLike, PodLike } from './pod-analyzer.js';
export { clustersReplicaState, needsPodAnalysis, schedulingResult, withDefaultClusterPreferences } from './replica-state.js';
export type { ClusterReplicaState, MemberWorkload } from './replica-state.js';
