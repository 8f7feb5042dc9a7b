// Administrators only: the organization's users with their tier and status; change a tier,
// deactivate (after a confirmation) and reactivate. The use cases check the administrator flag and
// the organization; for anyone else these pages do not exist (404).
import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import { AppError } from '../errors.js';
import { listOrganizationUsers, RATE_TIERS, setUserStatus, setUserTier, type AdminUserRow } from '../accounts/user-admin.js';
import type { AppDeps } from '../types.js';
import { field, page, type WebContext, type WebEnv } from './context.js';
import { count, dateTime } from './format.js';
import { ErrorSummary, type FormErrors } from './forms.js';
import { Badge, ColumnHeads, Csrf, FieldError, Layout, Notice, PageHead } from './layout.js';

const tierLabel = (u: AdminUserRow) => (u.tiers.length === 0 ? 'no keys' : u.tiers.join(' + '));

/** What the last action did, from codes in the URL (never text from it): ?done=tier|deactivated|reactivated&user=<id>. */
function doneMessage(users: AdminUserRow[], done?: string, userId?: string): string | undefined {
  const u = users.find((x) => x.id === userId);
  if (!u || !done) return undefined;
  if (done === 'tier') return `${u.email} is now on the ${tierLabel(u)} tier.`;
  if (done === 'deactivated') return `${u.email} is deactivated.`;
  if (done === 'reactivated') return `${u.email} is active again.`;
  return undefined;
}

const UsersPage: FC<{ session: Session; users: AdminUserRow[]; errors: FormErrors; done?: string }> = ({
  session,
  users,
  errors,
  done,
}) => (
  <Layout title="Users" session={session} active="admin">
    <ErrorSummary errors={errors} />
    <PageHead
      title="Users"
      lead="Everyone in your organization. The tier sets the rate limits of all of a user's keys (and of new ones); a deactivated user's keys and sessions stop working at once."
    />
    {done ? <Notice tone="info">{done}</Notice> : null}
    <div class="table-wrap">
      <table class="stack">
        <caption class="visually-hidden">Users of your organization</caption>
        <ColumnHeads cols={['User', 'Role', 'Status', 'Tier', ['Active keys', 'num'], 'Joined']} actions />
        <tbody>
          {users.map((u) => {
            const id = `tier-${u.id}`;
            return (
              <tr data-user={u.email}>
                <td data-label="User">
                  <strong class="wrap">{u.email}</strong>
                  {u.name ? <div class="muted">{u.name}</div> : null}
                </td>
                <td data-label="Role">
                  {u.role}
                  {u.is_admin ? (
                    <>
                      {' '}
                      <Badge tone="accent">admin</Badge>
                    </>
                  ) : null}
                </td>
                <td data-label="Status">{u.is_active ? <Badge tone="ok">active</Badge> : <Badge tone="danger">deactivated</Badge>}</td>
                <td data-label="Tier">
                  <form method="post" action={`/app/admin/users/${u.id}/tier`} class="tier-form">
                    <Csrf token={session.csrfToken} />
                    <label for={id} class="visually-hidden">
                      Tier for {u.email}
                    </label>
                    <select
                      id={id}
                      name="tier"
                      aria-invalid={errors[id] ? 'true' : undefined}
                      aria-describedby={errors[id] ? `${id}-error` : undefined}
                    >
                      {u.tiers.length !== 1 ? (
                        <option value="" selected>
                          {tierLabel(u)}
                        </option>
                      ) : null}
                      {RATE_TIERS.map((t) => (
                        <option value={t} selected={u.tiers.length === 1 && u.tiers[0] === t}>
                          {t}
                        </option>
                      ))}
                    </select>
                    <button type="submit" class="btn small">
                      Set<span class="visually-hidden"> tier for {u.email}</span>
                    </button>
                    <FieldError id={`${id}-error`} message={errors[id]} />
                  </form>
                </td>
                <td data-label="Active keys" class="num">
                  {count(u.active_keys)}
                </td>
                <td data-label="Joined" class="muted">
                  {dateTime(u.created_at)}
                </td>
                <td class="actions">
                  {u.id === session.user.id ? (
                    <span class="muted">you</span>
                  ) : u.is_active ? (
                    <a class="btn small danger" href={`/app/admin/users/${u.id}/deactivate`}>
                      Deactivate<span class="visually-hidden"> {u.email}</span>
                    </a>
                  ) : (
                    <form method="post" action={`/app/admin/users/${u.id}/reactivate`} class="inline-form">
                      <Csrf token={session.csrfToken} />
                      <button type="submit" class="btn small">
                        Reactivate<span class="visually-hidden"> {u.email}</span>
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  </Layout>
);

const ConfirmDeactivate: FC<{ session: Session; u: AdminUserRow }> = ({ session, u }) => (
  <Layout title="Deactivate user" session={session} active="admin">
    <PageHead title={`Deactivate ${u.email}?`} />
    <div class="card narrow">
      <p>
        Their {count(u.active_keys)} active {u.active_keys === 1 ? 'key answers' : 'keys answer'} 401 USER_ACCOUNT_DISABLED from now on and
        their web sessions end. Their collections and documents stay. You can reactivate them later.
      </p>
      <form method="post" action={`/app/admin/users/${u.id}/deactivate`} class="form-row section">
        <Csrf token={session.csrfToken} />
        <button type="submit" class="btn danger solid">
          Deactivate user
        </button>
        <a class="btn" href="/app/admin/users">
          Cancel
        </a>
      </form>
    </div>
  </Layout>
);

export function registerAdminPages(web: Hono<WebEnv>, deps: AppDeps): void {
  const list = async (c: WebContext, errors: FormErrors = {}, status = 200) => {
    const users = await listOrganizationUsers(deps, c.get('webCaller'));
    const done = doneMessage(users, c.req.query('done'), c.req.query('user'));
    return page(c, <UsersPage session={c.get('session')!} users={users} errors={errors} done={done} />, status);
  };

  web.get('/admin/users', (c) => list(c));

  web.post('/admin/users/:id/tier', async (c) => {
    const id = c.req.param('id');
    try {
      await setUserTier(deps, c.get('webCaller'), id, field(c.get('form'), 'tier'));
      return c.redirect(`/app/admin/users?done=tier&user=${id}`, 303);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
      return list(c, { [`tier-${id}`]: err.fields?.tier?.[0] ?? err.message }, 400);
    }
  });

  web.get('/admin/users/:id/deactivate', async (c) => {
    const users = await listOrganizationUsers(deps, c.get('webCaller'));
    const u = users.find((x) => x.id === c.req.param('id'));
    if (!u) throw new AppError('NOT_FOUND', 'User not found.');
    return page(c, <ConfirmDeactivate session={c.get('session')!} u={u} />);
  });

  for (const action of ['deactivate', 'reactivate'] as const) {
    web.post(`/admin/users/:id/${action}`, async (c) => {
      try {
        const id = c.req.param('id');
        await setUserStatus(deps, c.get('webCaller'), id, action === 'reactivate');
        return c.redirect(`/app/admin/users?done=${action}d&user=${id}`, 303);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
        return list(c, { _form: err.message }, 400);
      }
    });
  }
}
