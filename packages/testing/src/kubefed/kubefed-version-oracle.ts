import { execFile } from 'node:child_process';
import { findKubeFedBinaries } from './kubefed-binaries.js';
import { KubeFedStartError } from './kubefed-start-error.js';

/** A question for {@link askKubeFedVersionOracle}: the hashes of a federated object, or the version string of a member object. */
export type VersionOracleQuestion = { readonly federated: object } | { readonly member: object };

/** KubeFed's answer for a federated object: what its sync controller writes into the PropagatedVersion's status. */
export interface FederatedVersionAnswer {
  /** `sync.GetTemplateHash`: `status.templateVersion`. */
  readonly templateHash: string;
  /** `sync.GetOverrideHash`: `status.overridesVersion`. */
  readonly overrideHash: string;
}

/** KubeFed's answer for a member object: `util.ObjectVersion`, an entry of `status.clusterVersions`. */
export interface MemberVersionAnswer {
  readonly version: string;
}

/** KubeFed refused the object (e.g. `Object 'Kind' is missing`, a cluster listed twice in the overrides). */
export interface VersionOracleRefusal {
  readonly error: string;
}

export type VersionOracleAnswer = FederatedVersionAnswer | MemberVersionAnswer | VersionOracleRefusal;

/**
 * Asks KubeFed v0.10.0's own code (tools/kubefed/version-oracle, built by `npm run kubefed:build`)
 * for the version-tracking values of each object: one answer per question, in order. Objects are
 * read as KubeFed's informers read them from an API server (whole numbers as int64, others as
 * float64), so each must carry `kind`, as API objects do.
 *
 * @throws KubeFedStartError when the oracle is not built (saying to run `npm run kubefed:build`),
 *   exits non-zero, or answers something else than one answer per question.
 */
export async function askKubeFedVersionOracle(
  questions: readonly VersionOracleQuestion[],
  options: { dir?: string } = {},
): Promise<VersionOracleAnswer[]> {
  const { versionOracle } = await findKubeFedBinaries(options.dir);
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = execFile(versionOracle, [], { timeout: 30_000, maxBuffer: 64 * 1024 * 1024 }, (error, out, err) => {
      if (error === null) resolve(out);
      else reject(new KubeFedStartError(`version-oracle failed: ${error.message}\n${err}`, { cause: error }));
    });
    child.stdin?.end(JSON.stringify(questions));
  });
  const answers: unknown = JSON.parse(stdout);
  if (!Array.isArray(answers) || answers.length !== questions.length || !answers.every(isAnswer)) {
    throw new KubeFedStartError(`version-oracle answered ${stdout.slice(0, 500)} to ${questions.length} questions`);
  }
  return answers;
}

function isAnswer(value: unknown): value is VersionOracleAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (typeof v['templateHash'] === 'string' && typeof v['overrideHash'] === 'string') ||
    typeof v['version'] === 'string' ||
    typeof v['error'] === 'string'
  );
}
