// Profiles live in one JSON file in the user's config directory, readable only by its owner
// (directory 0700, file 0600), because it holds API keys and webhook secrets.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface Profile {
  url: string;
  api_key: string;
  /** Saved when `webhooks set`/`rotate-secret` reveals it, so `webhooks listen` can verify signatures. */
  webhook_secret?: string;
}

export interface ConfigFile {
  default_profile?: string;
  profiles: Record<string, Profile>;
}

/** $DOCSIFT_CONFIG_DIR, else the platform's user config directory + /docsift. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DOCSIFT_CONFIG_DIR) return env.DOCSIFT_CONFIG_DIR;
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'docsift');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'docsift');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'docsift');
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'config.json');
}

export async function readConfig(file = configPath()): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    return { ...parsed, profiles: parsed.profiles ?? {} };
  } catch {
    throw new Error(`${file} is not valid JSON; fix or delete it and run \`docsift login\` again.`);
  }
}

/** Written to a temporary file created 0600 and renamed over the old one, so no reader sees half a file. */
export async function writeConfig(config: ConfigFile, file = configPath()): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  await rename(tmp, file);
  // The mode option applies only to new files; an older, looser file is tightened here.
  await chmod(file, 0o600);
}

export async function updateProfile(name: string, patch: Partial<Profile>, file = configPath()): Promise<ConfigFile> {
  const config = await readConfig(file);
  const current = config.profiles[name];
  const next = { ...current, ...patch } as Profile;
  config.profiles[name] = next;
  config.default_profile ??= name;
  await writeConfig(config, file);
  return config;
}
