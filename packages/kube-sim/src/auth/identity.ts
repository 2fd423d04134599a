/** Who made a request. */
export interface Identity {
  user: string;
  groups: string[];
  /** The admin identity (group system:masters) bypasses authorization. */
  admin: boolean;
  /** For service accounts: namespace and name. */
  serviceAccount?: { namespace: string; name: string };
}

/** The admin user name written into kubeconfigs. */
export const adminUser = 'kubernetes-admin';
