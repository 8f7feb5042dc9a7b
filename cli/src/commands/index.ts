// Every command, grouped as the program mounts them (see program.ts).
import type { CommandDef } from '../command.js';
import login from './auth/login.js';
import logout from './auth/logout.js';
import whoami from './auth/whoami.js';
import billingInvoices from './billing/invoices.js';
import billingPlan from './billing/plan.js';
import collectionsCreate from './collections/create.js';
import collectionsDelete from './collections/delete.js';
import collectionsList from './collections/list.js';
import collectionsShow from './collections/show.js';
import collectionsSubscribe from './collections/subscribe.js';
import collectionsUnsubscribe from './collections/unsubscribe.js';
import collectionsUpdate from './collections/update.js';
import docsDelete from './docs/delete.js';
import docsDownload from './docs/download.js';
import docsList from './docs/list.js';
import docsReplace from './docs/replace.js';
import docsReprocess from './docs/reprocess.js';
import docsShow from './docs/show.js';
import docsSync from './docs/sync.js';
import docsUpdate from './docs/update.js';
import docsUpload from './docs/upload.js';
import docsWait from './docs/wait.js';
import keysCreate from './keys/create.js';
import keysExpire from './keys/expire.js';
import keysGrant from './keys/grant.js';
import keysGrants from './keys/grants.js';
import keysList from './keys/list.js';
import keysRevoke from './keys/revoke.js';
import keysRotate from './keys/rotate.js';
import keysUngrant from './keys/ungrant.js';
import mcpConfig from './mcp/config.js';
import search from './search/search.js';
import completion from './shell/completion.js';
import usage from './usage/usage.js';
import webhooksDelete from './webhooks/delete.js';
import webhooksDeliveries from './webhooks/deliveries.js';
import webhooksDisable from './webhooks/disable.js';
import webhooksEnable from './webhooks/enable.js';
import webhooksGet from './webhooks/get.js';
import webhooksListen from './webhooks/listen.js';
import webhooksRedeliver from './webhooks/redeliver.js';
import webhooksRotateSecret from './webhooks/rotate-secret.js';
import webhooksSet from './webhooks/set.js';
import webhooksTest from './webhooks/test.js';

type Any = CommandDef<any>;
export const authCommands: Any[] = [login, logout, whoami];
export const topLevelCommands: Any[] = [search, usage, completion];
export const collectionCommands: Any[] = [
  collectionsList,
  collectionsCreate,
  collectionsShow,
  collectionsUpdate,
  collectionsDelete,
  collectionsSubscribe,
  collectionsUnsubscribe,
];
export const docCommands: Any[] = [
  docsUpload,
  docsSync,
  docsList,
  docsShow,
  docsUpdate,
  docsReplace,
  docsDownload,
  docsWait,
  docsDelete,
  docsReprocess,
];
export const keyCommands: Any[] = [keysList, keysCreate, keysRotate, keysRevoke, keysExpire, keysGrant, keysUngrant, keysGrants];
export const webhookCommands: Any[] = [
  webhooksGet,
  webhooksSet,
  webhooksDelete,
  webhooksTest,
  webhooksDeliveries,
  webhooksRedeliver,
  webhooksRotateSecret,
  webhooksEnable,
  webhooksDisable,
  webhooksListen,
];
export const mcpCommands: Any[] = [mcpConfig];
export const billingCommands: Any[] = [billingPlan, billingInvoices];
