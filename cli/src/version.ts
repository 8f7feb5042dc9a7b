// The CLI's version, from its package.json (inlined by the bundler in the published build).
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
