/**
 * The notices a page shows after a redirect (`?notice=KEY`, with `n` for a count): only these
 * fixed texts, so a link cannot put words of its own on a page of the console.
 */
const notices: Record<string, (n: number) => string> = {
  'signed-out': () => 'You are signed out.',
  'password-set': () => 'Your password is set. Sign in with it.',
  'two-factor-on': () => 'Sign-in now asks for a code from your authenticator app.',
  'two-factor-off': () => 'Sign-in no longer asks for a code.',
  'password-changed': () => 'Your password is changed. Your other sessions were signed out.',
  marked: (n) => `${n} ${n === 1 ? 'finding' : 'findings'} updated.`,
  tagged: (n) => `${n} ${n === 1 ? 'finding' : 'findings'} tagged.`,
  'asset-added': () => 'Asset added. Verify it to scan it.',
  'asset-deleted': () => 'Asset deleted.',
  'asset-verified': () => 'The asset is verified.',
  'asset-not-verified': () => 'The verification record or file was not found yet. Check again once it is published.',
  'settings-saved': () => 'Settings saved.',
  'zone-indexed': (n) => `${n} ${n === 1 ? 'name' : 'names'} indexed under the team's root domain assets.`,
  'zone-indexed-apex': (n) =>
    `${n} ${n === 1 ? 'name' : 'names'} indexed; the zone was added as a root asset (unverified: verify it to scan it).`,
  'member-invited': () => 'Invitation made.',
  'member-role-changed': () => 'Role changed.',
  'member-removed': () => 'Member removed. Their sessions have ended.',
  'member-invited-sso': () =>
    'Invitation made. The member signs in through single sign-on (no link to send): their first sign-in accepts it.',
  'member-sign-in-sso': () =>
    'The member now signs in through single sign-on. Their sessions have ended and their password no longer works.',
  'member-sign-in-password': () =>
    'The member now signs in with a password. They need a reset link from your operator first (perimeter admin member link); the console does not issue it.',
  'member-sign-in-sso-pending': () =>
    'The member now joins through single sign-on: their invitation link no longer works, and their first sign-in accepts the invitation.',
  'member-sign-in-invitation': () => 'The member now joins with a password: send them a new invitation link.',
  'group-created': () => 'Group created.',
  'group-deleted': () => 'Group deleted.',
  'group-member-added': () => 'Member added to the group.',
  'group-member-removed': () => 'Member removed from the group.',
  'pattern-added': () => 'Asset pattern added.',
  'pattern-removed': () => 'Asset pattern removed.',
  'key-revoked': () => 'API key revoked. Requests with it are refused within seconds.',
  'connector-created': () => 'Connector created. Its first run is queued.',
  'connector-deleted': () => 'Connector deleted.',
  'connector-run-queued': () => 'Run queued.',
  'connector-run-live': () => 'A run of this connector is already queued or running: no second one was queued.',
  'profile-created': () => 'Scan profile created. Start a scan, or set a schedule.',
  'profile-deleted': () => 'Scan profile deleted. The findings it reported stay.',
  'scan-started': () => 'Scan started. A worker takes it within seconds.',
  'scan-stopping': () => 'The scan is stopping.',
  'scan-stopped': () => 'The scan is stopped.',
  'schedule-saved': () => 'Schedule saved.',
  'schedule-removed': () => 'Schedule removed.',
  'sso-saved': () => 'Single sign-on saved. Members whose authentication is sso sign in through the provider.',
  'sso-removed': () => 'Single sign-on is off.',
  'jira-saved': () => 'Jira connection saved. Findings that match the rule get an issue from now on.',
  'jira-deleted': () => 'Jira disconnected. The issues stay in Jira.',
  'webhook-created': () => 'Webhook created.',
  'webhook-saved': () => 'Webhook saved.',
  'webhook-enabled': () => 'Webhook enabled. It delivers the events that happen from now on.',
  'webhook-disabled': () => 'Webhook disabled. It delivers nothing until it is enabled again.',
  'webhook-deleted': () => 'Webhook deleted.',
  'webhook-redelivered': () => 'The event was sent again: its attempt is the first row.',
};

/** The notice a query names, or undefined. */
export function noticeOf(query: URLSearchParams): string | undefined {
  const key = query.get('notice');
  if (key === null) return undefined;
  const notice = notices[key];
  if (notice === undefined) return undefined;
  const n = Number(query.get('n') ?? '0');
  return notice(Number.isInteger(n) && n >= 0 && n < 1e9 ? n : 0);
}

/** A path with a notice (replacing one it carried already). */
export function withNotice(path: string, key: string, n?: number): string {
  const [base, search = ''] = path.split('?', 2) as [string, string?];
  const query = new URLSearchParams(search);
  query.delete('notice');
  query.delete('n');
  query.set('notice', key);
  if (n !== undefined) query.set('n', String(n));
  return `${base}?${query.toString()}`;
}
