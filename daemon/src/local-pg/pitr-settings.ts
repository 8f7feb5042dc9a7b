// Point-in-time recovery of the embedded cluster with pgBackRest: where its repository is, and the
// pgbackrest.conf and PostgreSQL settings that archive every WAL segment there.
//
// The recovery window is BLOB_RETENTION_DAYS, the same days purge_blobs keeps a deleted document's
// file: a restore to any moment in the window finds every file its documents reference (a file is
// deleted only that long after its row stopped referencing it), and pgBackRest keeps backups and
// WAL for at least that long (time-based retention of full backups).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { parseS3Location } from '../storage/s3-location.js';

export const STANZA = 'docsift';

export type PitrRepo =
  | { type: 'dir'; path: string }
  | {
      type: 's3';
      bucket: string;
      prefix: string;
      host: string;
      port: number;
      region: string;
      key?: string;
      secret?: string;
      pathStyle: boolean;
      caFile?: string;
    };

export interface PitrSettings {
  repo: PitrRepo;
  retentionDays: number;
  /** pgbackrest.conf, its logs, locks and spool: under DATA_DIR, beside the cluster. */
  home: string;
}

export class PitrConfigError extends Error {}

/** Where the settings of the last start with PITR_REPO are kept (written by local-pg/pgbackrest.ts). */
export const savedSettingsFile = (home: string) => path.join(home, 'settings.json');

/**
 * The PITR settings of this configuration: from PITR_REPO and the S3_* settings when set, else those
 * an earlier start with PITR_REPO saved under DATA_DIR/pgbackrest. Every process provisions the
 * cluster and rewrites docsift.conf, so a command run without PITR_REPO (an admin command, a worker
 * started by hand) must not turn archiving off. Undefined when archiving was never turned on.
 */
export function pitrSettings(config: Config): PitrSettings | undefined {
  const home = path.resolve(config.DATA_DIR, 'pgbackrest');
  // With DATABASE_URL in the environment, loadConfig refuses PITR_REPO (config.ts crossCheck).
  if (!config.PITR_REPO) {
    let saved: PitrSettings;
    try {
      saved = JSON.parse(readFileSync(savedSettingsFile(home), 'utf8')) as PitrSettings;
    } catch {
      return undefined;
    }
    return { ...saved, retentionDays: config.BLOB_RETENTION_DAYS, home };
  }
  const s3 = parseS3Location(config.PITR_REPO);
  if (!s3) return { repo: { type: 'dir', path: path.resolve(config.PITR_REPO) }, retentionDays: config.BLOB_RETENTION_DAYS, home };
  const endpoint = new URL(config.S3_ENDPOINT ?? `https://s3.${config.S3_REGION}.amazonaws.com`);
  if (endpoint.protocol !== 'https:')
    throw new PitrConfigError(
      `PITR_REPO on S3 needs an https S3_ENDPOINT (pgBackRest reaches S3 only over TLS); it is ${endpoint.origin}.`,
    );
  return {
    repo: {
      type: 's3',
      bucket: s3.bucket,
      prefix: `/${s3.prefix}`,
      host: endpoint.hostname,
      port: Number(endpoint.port || 443),
      region: config.S3_REGION,
      ...(config.S3_ACCESS_KEY_ID ? { key: config.S3_ACCESS_KEY_ID } : {}),
      ...(config.S3_SECRET_ACCESS_KEY ? { secret: config.S3_SECRET_ACCESS_KEY } : {}),
      pathStyle: config.S3_FORCE_PATH_STYLE || !!config.S3_ENDPOINT,
      ...(config.PITR_S3_CA_FILE ? { caFile: path.resolve(config.PITR_S3_CA_FILE) } : {}),
    },
    retentionDays: config.BLOB_RETENTION_DAYS,
    home,
  };
}

export const confFile = (s: PitrSettings) => path.join(s.home, 'pgbackrest.conf');

/** pgbackrest.conf for the cluster in `dataDir` listening on `port`. */
export function pgbackrestConf(s: PitrSettings, cluster: { dataDir: string; port: number }): string {
  const r = s.repo;
  const repo =
    r.type === 'dir'
      ? [`repo1-path=${r.path}`]
      : [
          'repo1-type=s3',
          `repo1-path=${r.prefix}`,
          `repo1-s3-bucket=${r.bucket}`,
          `repo1-s3-endpoint=${r.host}`,
          `repo1-storage-port=${r.port}`,
          `repo1-s3-region=${r.region}`,
          ...(r.key && r.secret ? [`repo1-s3-key=${r.key}`, `repo1-s3-key-secret=${r.secret}`] : ['repo1-s3-key-type=auto']),
          `repo1-s3-uri-style=${r.pathStyle ? 'path' : 'host'}`,
          ...(r.caFile ? [`repo1-storage-ca-file=${r.caFile}`] : []),
        ];
  return [
    '# Written by docsift (daemon/src/local-pg/pitr-settings.ts) at every start; PITR_REPO and BLOB_RETENTION_DAYS set it.',
    '[global]',
    ...repo,
    // Full backups are kept so that any moment of the last BLOB_RETENTION_DAYS days can be restored.
    'repo1-retention-full-type=time',
    `repo1-retention-full=${s.retentionDays}`,
    `log-path=${path.join(s.home, 'log')}`,
    `lock-path=${path.join(s.home, 'lock')}`,
    `spool-path=${path.join(s.home, 'spool')}`,
    'log-level-console=warn',
    'log-level-file=info',
    // A backup starts with an immediate checkpoint instead of waiting for the next one (15 min).
    'start-fast=y',
    '',
    `[${STANZA}]`,
    `pg1-path=${cluster.dataDir}`,
    `pg1-port=${cluster.port}`,
    'pg1-user=docsift',
    'pg1-database=docsift',
    '',
  ].join('\n');
}

/**
 * The PostgreSQL settings that archive every WAL segment through pgBackRest. archive_timeout
 * switches a segment at least once a minute, so a quiet database loses at most a minute of
 * commits with its disk.
 */
export function archiveSettings(s: PitrSettings): Record<string, string> {
  const cmd = `pgbackrest --config=${confFile(s)} --stanza=${STANZA} archive-push %p`;
  return {
    archive_mode: 'on',
    archive_command: `'${cmd.replace(/'/g, "''")}'`,
    archive_timeout: "'60s'",
    wal_level: 'replica',
  };
}
