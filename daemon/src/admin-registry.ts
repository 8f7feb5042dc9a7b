import { createAdminCommandLine } from './admin/command-line.js';
import { COMMANDS } from './admin/commands.js';
import { BACKUP_COMMANDS } from './backup/admin-commands.js';
import { PITR_COMMANDS } from './pitr/admin-commands.js';

// The registry: every `admin …` subcommand lives with what it administers (accounts, keys and
// billing in admin/commands.ts; backup/ and pitr/ own theirs, which open the database themselves).
const ADMIN = createAdminCommandLine(COMMANDS, [...BACKUP_COMMANDS, ...PITR_COMMANDS]);

export const adminHelp = ADMIN.help;
export const isStandaloneAdmin = ADMIN.isStandalone;
export const runAdmin = ADMIN.run;
export const runStandaloneAdmin = ADMIN.runStandalone;
