// Stand-ins for endpoints that are specified but not yet in openapi/openapi.json. They are merged
// *under* the generated types (`Omit<Pending, keyof paths>`), so once `npm run generate -w
// @docsift/sdk` picks up the real operation the generated definition wins and the stand-in can go.
// Webhooks, usage and billing started here; all are generated now, so both lists are empty.
import type { components, paths } from './generated/schema.js';

export type PendingSchemas = Record<never, never>;
export type PendingPaths = Record<never, never>;

/** Every path the client can call: the generated ones, plus stand-ins for those not generated yet. */
export type Paths = paths & Omit<PendingPaths, keyof paths>;
/** Every named schema: generated first, stand-ins only for names not generated yet. */
export type Schemas = components['schemas'] & Omit<PendingSchemas, keyof components['schemas']>;
