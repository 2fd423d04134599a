/** Regions of the default members (and of their Nodes), so that each lands in its own. */
export const DEFAULT_REGIONS: Readonly<Record<string, string>> = { member1: 'us-east-1', member2: 'eu-west-1', member3: 'ap-southeast-1' };
