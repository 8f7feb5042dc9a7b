import path from 'node:path';
import type { Config } from '../config.js';
import { pitrSettings } from './pitr-settings.js';
import { ensureLocalPostgres, type LocalPostgres } from './provision.js';
import type { Log } from './run.js';

/** The embedded cluster as this configuration runs it (DATA_DIR/postgres, PG_PORT, PITR_REPO): every process provisions it alike. */
export function embeddedPostgres(config: Config, log: Log): Promise<LocalPostgres> {
  const pitr = pitrSettings(config);
  return ensureLocalPostgres({
    dataDir: path.join(config.DATA_DIR, 'postgres'),
    port: config.PG_PORT,
    database: 'docsift',
    log,
    ...(pitr ? { pitr } : {}),
  });
}
