/**
 * The realistic application's login, logout, security-level switch and change-password pages:
 * the form login with a hidden anti-CSRF token and a `Login` button, the default administrator
 * (admin / password on the vulnerable twin), a security switch that ends the session, and a
 * change-password GET form that really changes the password (no token, no current password on
 * the vulnerable twin): a scanner that submits it loses its own login.
 */
import { randomBytes } from 'node:crypto';
import {
  escapeHtml,
  formFields,
  hasValidToken,
  html,
  layout,
  redirect,
  sessionCookie,
  tokenInput,
  type AppRequest,
  type AppResponse,
  type AppState,
  type Page,
} from './app-kit.ts';

const LOGIN_TOKEN_LIFETIME_MS = 30 * 60_000;

function loginPage(state: AppState, message: string): AppResponse {
  const token = randomBytes(16).toString('hex');
  if (state.loginTokens.size > 20_000) state.loginTokens.clear();
  state.loginTokens.set(token, Date.now() + LOGIN_TOKEN_LIFETIME_MS);
  return html(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Login :: Damn Vulnerable Web Application (DVWA)</title><link rel="stylesheet" href="/static/login.css"></head>
<body class="home"><div id="wrapper"><div id="header"><img src="/static/login_logo.png" alt="DVWA"></div>
<div id="content"><form action="/login" method="post"><fieldset>
<label for="user">Username</label> <input type="text" class="loginInput" size="20" name="username" id="user"><br />
<label for="pass">Password</label> <input type="password" class="loginInput" AUTOCOMPLETE="off" size="20" name="password" id="pass"><br />
<p class="submit"><input type="submit" value="Login" name="Login"></p>
</fieldset><input type="hidden" name="user_token" value="${token}"></form>
${message === '' ? '' : `<div class="message">${escapeHtml(message)}</div>`}</div></div></body></html>`);
}

function login(request: AppRequest): AppResponse {
  const { state } = request;
  if (request.method !== 'POST') {
    const note = request.url.searchParams.get('msg');
    const messages: Record<string, string> = {
      failed: 'Login failed',
      token: 'CSRF token is incorrect',
      expired: 'Your session expired: please log in again',
      level: 'Security level changed: please log in again',
    };
    return loginPage(state, messages[note ?? ''] ?? '');
  }
  const fields = formFields(request.body);
  // `if (isset($_POST['Login']))`: without the button nothing happens.
  if (!fields.has('Login')) return loginPage(state, '');
  const token = fields.get('user_token') ?? '';
  const expiry = state.loginTokens.get(token);
  if (expiry === undefined || expiry < Date.now()) return redirect('/login?msg=token');
  const account = state.accounts.get(fields.get('username') ?? '');
  if (account === undefined || account.password !== (fields.get('password') ?? '')) {
    state.counters.failedLogins++;
    return redirect('/login?msg=failed');
  }
  state.loginTokens.delete(token);
  const session = {
    id: randomBytes(16).toString('hex'),
    username: account.username,
    createdAt: Date.now(),
    requests: 0,
    token: randomBytes(16).toString('hex'),
  };
  state.sessions.set(session.id, session);
  state.counters.logins++;
  return redirect('/', { 'set-cookie': [sessionCookie(state, session.id)] });
}

function endSession(request: AppRequest, to: string): AppResponse {
  if (request.session !== undefined) request.state.sessions.delete(request.session.id);
  return redirect(to, { 'set-cookie': [sessionCookie(request.state, 'deleted', '; Max-Age=0')] });
}

function security(request: AppRequest): AppResponse {
  const account = request.account!;
  if (request.method === 'POST') {
    const fields = formFields(request.body);
    const level = fields.get('security');
    if (fields.has('seclev_submit') && (!request.state.isSafe || hasValidToken(request))) {
      if (level === 'low' || level === 'medium' || level === 'high' || level === 'impossible') {
        if (level !== account.level) request.state.counters.levelChanges++;
        account.level = level;
      }
      // The level is set for the account and the session is renewed: the client must log in again.
      return endSession(request, '/login?msg=level');
    }
  }
  const options = ['low', 'medium', 'high', 'impossible']
    .map(
      (l) =>
        `<option value="${l}"${l === account.level ? ' selected' : ''}>${l[0]!.toUpperCase()}${l.slice(1)}</option>`,
    )
    .join('');
  return html(
    layout(
      request,
      'DVWA Security',
      `<h2>Security Level</h2><p>Security level is currently: <em>${account.level}</em>.</p>
<form action="/security" method="POST"><select name="security">${options}</select> <input type="submit" value="Submit" name="seclev_submit">${tokenInput(request)}</form>`,
    ),
  );
}

function changePassword(request: AppRequest): AppResponse {
  const account = request.account!;
  const query = request.url.searchParams;
  let output = '';
  if (query.has('Change')) {
    const next = query.get('password_new') ?? '';
    const confirm = query.get('password_conf') ?? '';
    if (request.state.isSafe && (!hasValidToken(request) || query.get('password_current') !== account.password))
      output = '<pre>Password incorrect.</pre>';
    else if (next !== confirm) output = '<pre>Passwords did not match.</pre>';
    else {
      account.password = next;
      request.state.counters.passwordChanges++;
      output = '<pre>Password Changed.</pre>';
    }
  }
  const current = request.state.isSafe
    ? 'Current password:<br /><input type="password" AUTOCOMPLETE="off" name="password_current"><br />'
    : '';
  return html(
    layout(
      request,
      'Vulnerability: Cross Site Request Forgery (CSRF)',
      `<div class="vulnerable_code_area"><h3>Change your admin password:</h3><form action="/vulnerabilities/csrf/" method="GET">${current}
New password:<br /><input type="password" AUTOCOMPLETE="off" name="password_new"><br />
Confirm new password:<br /><input type="password" AUTOCOMPLETE="off" name="password_conf"><br />
<input type="submit" value="Change" name="Change">${tokenInput(request)}</form>${output}</div>`,
    ),
  );
}

/** Pages open without a session (the login form). */
export const publicAccountPages: Page = (request) => (request.url.pathname === '/login' ? login(request) : undefined);

/** Logged-in account pages: logout, the security switch, change password. */
export const accountPages: Page = (request) => {
  switch (request.url.pathname) {
    case '/logout':
      return endSession(request, '/login');
    case '/security':
      return security(request);
    case '/vulnerabilities/csrf/':
      return changePassword(request);
    default:
      return undefined;
  }
};
