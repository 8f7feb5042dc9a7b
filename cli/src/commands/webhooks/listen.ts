import { defineCommand, intFlag, stringFlag } from '../../command.js';
import { updateProfile } from '../../config.js';
import type { Context } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { ApiError, NotFoundError, SeenEvents, type DocsiftClient, type WebhookConfig } from '@docsift/sdk';
import { startReceiver, type ReceivedEvent, type ReceiverOptions } from '../../webhook-receiver.js';

interface Options {
  port: number;
  host: string;
  forwardTo: string | undefined;
  secret: string | undefined;
  skipVerify: boolean;
  register: string | boolean;
  rotateSecret: boolean;
  toleranceSeconds: number;
  maxEvents: number | undefined;
  keepRepeats: boolean;
}

/** The organization's webhook, or undefined when none is configured. */
async function currentWebhook(client: DocsiftClient): Promise<WebhookConfig | undefined> {
  const w = await client.webhooks.get().catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  });
  return w?.configured ? w : undefined;
}

/**
 * Undoes --register when the listener ends: the webhook it created is deleted, one it re-pointed
 * gets its previous address (and state) back. Left alone when someone changed it meanwhile.
 */
async function unregister(ctx: Context, client: DocsiftClient, registered: string, previous: WebhookConfig | undefined): Promise<void> {
  const now = await currentWebhook(client);
  if (!now || now.url !== registered) return;
  if (!previous?.url) {
    await client.webhooks.delete();
    if (!ctx.json) ctx.out.note(`Webhook ${registered} removed (registered by this listener).`);
    return;
  }
  await client.webhooks.set(previous.url);
  if (previous.is_active !== now.is_active) await client.webhooks.update({ is_active: previous.is_active });
  if (!ctx.json) ctx.out.note(`Webhook set back to ${previous.url}.`);
}

const mask = (s: string) => `${s.slice(0, 10)}…`;

type SecretCheck = { result: 'ok' | 'stale' | 'unreached' | 'skipped' } | { result: 'rejected'; reason: string };

/**
 * Has the service send a signed `webhook.test` event to this receiver and looks at how it fared,
 * without printing, forwarding or counting it: a signature mismatch means the secret is stale.
 */
async function checkSecret(ctx: Context, receiver: ReceiverOptions): Promise<SecretCheck> {
  let seen: ReceivedEvent | undefined;
  receiver.intercept = (e) => {
    if (e.claimed_event !== 'webhook.test') return false;
    seen ??= e;
    return true;
  };
  try {
    await (await ctx.client()).webhooks.test();
  } catch (err) {
    // The receiver's 400 for a bad signature makes the test itself fail: what it saw says why.
    if (!(err instanceof ApiError && err.code === 'WEBHOOK_TEST_FAILED')) throw err;
  } finally {
    receiver.intercept = undefined;
  }
  if (!seen) return { result: 'unreached' };
  if (seen.verified) return { result: 'ok' };
  if (seen.reason?.startsWith('signature_mismatch')) return { result: 'stale' };
  return { result: 'rejected', reason: seen.reason ?? 'rejected' };
}

function printEvent(ctx: Context, e: ReceivedEvent): void {
  if (ctx.json) return void ctx.out.line(JSON.stringify({ type: 'event', ...e }));
  const o = ctx.out;
  const time = e.received_at.slice(11, 19);
  if (!e.verified && e.reason) return void o.line(`${o.dim(time)} ${o.red('✗ rejected')} ${e.reason}`);
  if (e.repeat)
    return void o.line(
      `${o.dim(time)} ${o.dim(`↺ repeat of ${e.event ?? '?'} ${e.event_id ?? ''}${e.attempt ? ` attempt ${e.attempt}` : ''}: answered 200, not ${e.forward === undefined ? 'forwarded' : 'counted'}`)}`,
    );
  const data = e.payload?.data as { title?: string; status?: string; error_message?: string | null; message?: string } | undefined;
  const what = data?.title ? `${data.title}${data.error_message ? ` — ${data.error_message}` : ''}` : (data?.message ?? '');
  o.line(
    `${o.dim(time)} ${e.verified ? o.green('✓') : o.yellow('?')} ${o.bold(e.event ?? '?')} ${what} ${o.dim(`${e.event_id ?? ''}${e.attempt ? ` attempt ${e.attempt}` : ''}`)}`,
  );
  if (e.forward)
    o.line(
      `         → ${e.forward.url} ${e.forward.status === null ? o.red(`failed: ${e.forward.error}`) : e.forward.status < 300 ? o.green(String(e.forward.status)) : o.red(String(e.forward.status))} ${o.dim(`${e.forward.duration_ms} ms`)}`,
    );
}

/** The line saying where the listener listens and what it checks: a JSON event with --json. */
function announce(
  ctx: Context,
  opts: { skipVerify?: boolean; forwardTo?: string },
  where: { url: string; registered: string | undefined; check: SecretCheck['result']; secret: string | undefined },
): void {
  if (ctx.json)
    ctx.out.line(
      JSON.stringify({
        type: 'listening',
        url: where.url,
        registered: where.registered ?? null,
        forward_to: opts.forwardTo ?? null,
        verifying: !opts.skipVerify,
        secret_check: where.check,
      }),
    );
  else {
    const o = ctx.out;
    o.note(
      `Listening on ${o.bold(where.url)}${opts.skipVerify ? o.yellow(' without verifying signatures') : ` (verifying with ${mask(where.secret!)})`}${opts.forwardTo ? `, forwarding to ${opts.forwardTo}` : ''}.`,
    );
    if (where.registered)
      o.note(
        `Webhook set to ${where.registered}${where.check === 'ok' ? ' (secret checked with a signed test delivery)' : ''}. Trigger one with \`docsift webhooks test\` or an upload.`,
      );
    else
      o.note(
        o.dim(
          `Nothing was changed on the server. Point the webhook here with \`docsift webhooks set <public-url>\` (or ${where.url} when the daemon runs with ALLOW_PRIVATE_URLS=true), or rerun with --register.`,
        ),
      );
    o.note(o.dim('Ctrl-C to stop.'));
  }
}

export default defineCommand<Options>({
  name: 'listen',
  summary: 'Run a local receiver that verifies signed deliveries and prints or forwards them',
  help: `Like \`stripe listen\`, for development. It changes nothing on the server unless asked
(--register). The service must be able to reach the receiver:
  • local daemon in development (ALLOW_PRIVATE_URLS=true):
      docsift webhooks listen --register --forward-to http://localhost:3000/hooks
    registers http://127.0.0.1:<port>/ as the webhook;
  • a remote server: expose the port through a public tunnel (cloudflared, ngrok, …) and
      docsift webhooks listen --port 4242 --register https://<tunnel-host>/
Signatures are checked with --secret, DOCSIFT_WEBHOOK_SECRET, or the secret saved in the profile
by \`webhooks set\`/\`rotate-secret\`. With --register the secret is checked at start with a signed
test delivery (not printed or forwarded); a stale one (rotated elsewhere) stops the listener with
what to do. If the webhook already exists and its secret is unknown or stale, --rotate-secret
issues a new one (other receivers then need it too). Deliveries that fail
verification are answered 400; with --forward-to the app's answer is passed back (502 when it is
down), so the service's retries behave as in production. Delivery is at least once: a repeat of an
event already received (same X-Service-Event-Id) is answered 200 and neither forwarded nor counted,
as a production receiver should do (--keep-repeats passes repeats on). With --register, the webhook
is undone when the listener ends (Ctrl-C, SIGTERM, --max-events, or an error): removed if the
listener created it, else set back to its previous address.

Examples:
  docsift webhooks listen --register --forward-to http://localhost:3000/hooks
  docsift webhooks listen --port 4242 --register https://abc.trycloudflare.com/
  docsift webhooks listen --register --rotate-secret --max-events 1 --json`,
  options: (cmd) =>
    cmd
      .option('--port <port>', 'port to listen on (0: any free port)', '4242')
      .option('--host <host>', 'interface to bind', '127.0.0.1')
      .option('-f, --forward-to <url>', 'forward verified deliveries to this URL')
      .option('--secret <secret>', 'signing secret (whsec_…)')
      .option('--register [url]', "set the organization's webhook to this URL (default: the receiver's own address)")
      .option('--rotate-secret', 'issue a new signing secret and verify with it')
      .option('--skip-verify', 'accept unsigned or wrongly signed deliveries (never in production)')
      .option('--tolerance <seconds>', 'maximum age of X-Service-Timestamp', '300')
      .option('--max-events <n>', 'exit after this many verified events')
      .option('--keep-repeats', 'forward and count repeated deliveries of one event too'),
  parse: (_a, flags) => ({
    port: intFlag(flags.port, '--port', { min: 0, max: 65535 })!,
    host: stringFlag(flags.host)!,
    forwardTo: stringFlag(flags.forwardTo),
    secret: stringFlag(flags.secret),
    skipVerify: !!flags.skipVerify,
    register: (flags.register as string | boolean | undefined) ?? false,
    rotateSecret: !!flags.rotateSecret,
    toleranceSeconds: intFlag(flags.tolerance, '--tolerance', { max: 86_400 })!,
    maxEvents: intFlag(flags.maxEvents, '--max-events'),
    keepRepeats: !!flags.keepRepeats,
  }),
  async run(ctx, opts) {
    if (opts.forwardTo) {
      try {
        new URL(opts.forwardTo);
      } catch {
        throw new UsageError(`--forward-to is not a URL: ${opts.forwardTo}`);
      }
    }
    const creds = await ctx.credentials();
    let secret = opts.secret ?? (ctx.env.DOCSIFT_WEBHOOK_SECRET || undefined) ?? creds.profile?.webhook_secret;
    let secretSource = opts.secret
      ? '--secret'
      : ctx.env.DOCSIFT_WEBHOOK_SECRET
        ? 'DOCSIFT_WEBHOOK_SECRET'
        : `saved in profile "${creds.profileName}"`;
    let seen = 0;
    let finish: () => void = () => {};
    const finished = new Promise<void>((r) => (finish = r));
    const secrets: string[] = [];
    const receiverOptions: ReceiverOptions = {
      port: opts.port,
      host: opts.host,
      secrets,
      skipVerify: opts.skipVerify,
      toleranceSeconds: opts.toleranceSeconds,
      forwardTo: opts.forwardTo,
      seen: opts.keepRepeats ? undefined : new SeenEvents(),
      onEvent: (e) => {
        printEvent(ctx, e);
        if (e.verified && !e.repeat && opts.maxEvents && ++seen >= opts.maxEvents) finish();
      },
    };
    const receiver = await startReceiver(receiverOptions);
    // From here on a signal ends the listener through its cleanup (unregistering), not abruptly.
    const stop = () => finish();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let registration: { registered: string; previous: WebhookConfig | undefined } | undefined;
    try {
      const saveSecret = async (s: string) => {
        if (creds.source === 'profile') await updateProfile(creds.profileName, { webhook_secret: s }, ctx.configFile);
      };
      let registered: string | undefined;
      if (opts.register !== false) {
        const client = await ctx.client();
        registered = typeof opts.register === 'string' ? opts.register : receiver.url;
        const previous = await currentWebhook(client);
        const w = await client.webhooks.set(registered);
        if (previous?.url !== registered) registration = { registered, previous };
        if ('secret' in w) {
          secret = w.secret;
          secretSource = 'just issued';
          await saveSecret(secret);
        }
      }
      const rotate = async () => {
        secret = (await (await ctx.client()).webhooks.rotateSecret()).secret;
        secretSource = 'just issued';
        secrets.splice(0, secrets.length, secret);
        await saveSecret(secret);
      };
      if (opts.rotateSecret) await rotate();
      if (!secret && !opts.skipVerify) {
        throw new CliError(
          'No signing secret to verify deliveries with.',
          2,
          'Pass --secret or set DOCSIFT_WEBHOOK_SECRET (it was shown by `webhooks set`), add --rotate-secret to issue a new one, or --skip-verify for a quick look.',
          'USAGE',
        );
      }
      if (secret) secrets.push(secret);

      // The webhook points here: prove the secret with a signed delivery before promising to verify.
      let check: SecretCheck = { result: 'skipped' };
      if (registered && !opts.skipVerify) {
        check = await checkSecret(ctx, receiverOptions);
        if (check.result === 'stale' && ctx.interactive) {
          const { confirm } = await import('@inquirer/prompts');
          ctx.out.warn(`The signing secret ${secretSource} does not match the webhook's: it was rotated elsewhere.`);
          if (await confirm({ message: 'Issue a new signing secret now? (receivers using the current one then need the new one)' })) {
            await rotate();
            check = await checkSecret(ctx, receiverOptions);
          }
        }
        if (check.result === 'stale')
          throw new CliError(
            `The signing secret ${secretSource} does not match the webhook's: it was rotated elsewhere since (a signed test delivery was rejected as signature_mismatch).`,
            1,
            'Rerun with --rotate-secret to issue a new secret and save it (receivers that use the current one then need the new one), or pass the current one with --secret whsec_….',
            'WEBHOOK_SECRET_STALE',
          );
        if (check.result === 'unreached')
          ctx.out.warn(
            `The signed test delivery did not reach this receiver: the service cannot reach ${registered}. Deliveries will not arrive until it can (a local daemon needs ALLOW_PRIVATE_URLS=true; a remote one a public tunnel).`,
          );
        if (check.result === 'rejected') ctx.out.warn(`The signed test delivery was rejected here: ${check.reason}.`);
      }

      announce(ctx, opts, { url: receiver.url, registered, check: check.result, secret });
      await finished;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await receiver.close();
      if (registration) await unregister(ctx, await ctx.client(), registration.registered, registration.previous);
    }
  },
});
