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

/** Who a request without credentials is, as kube-apiserver's default `--anonymous-auth=true` makes it. */
export const anonymous: Identity = { user: 'system:anonymous', groups: ['system:unauthenticated'], admin: false };
