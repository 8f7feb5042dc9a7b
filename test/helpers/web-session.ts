// A signed-in web UI session over plain HTTP (no browser): the session cookie and its CSRF token,
// for requests to the web UI's form and upload routes.
import type { TestDaemon } from './daemon.js';

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

export async function webSession(d: TestDaemon, email: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${d.url}/app/sign-in`);
  const pre = cookiesOf(form);
  const signIn = await fetch(`${d.url}/app/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: pre, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password, _csrf: csrfOf(await form.text()) }),
  });
  if (signIn.status !== 303) throw new Error(`web sign-in failed: ${signIn.status} ${await signIn.text()}`);
  const cookie = cookiesOf(signIn);
  const home = await fetch(`${d.url}/app/`, { headers: { cookie } });
  const csrf = csrfOf(await home.text());
  if (!csrf) throw new Error('no CSRF token on the signed-in page');
  return { cookie, csrf };
}
