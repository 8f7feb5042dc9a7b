import { createRoute, z } from '@hono/zod-openapi';
import type { App } from './router.js';
import { languageChoices } from '../collections/language.js';
import type { AppDeps } from '../types.js';
import { errorResponses, jsonResponse } from './router.js';

const Language = z
  .object({
    name: z.string().openapi({ description: 'What `language` takes on a collection.', example: 'chinese' }),
    kind: z.enum(['stemmer', 'segmented', 'simple', 'custom']).openapi({
      description:
        '`stemmer`: PostgreSQL snowball stemming and stop words (`german` finds "Vertrag" for "Verträge"). `segmented`: a language written without spaces between words (chinese, japanese, korean, thai), whose words the server segments before indexing and searching. `simple`: words lowercased, nothing removed (code, identifiers, other languages). `custom`: a configuration the operator created.',
      example: 'segmented',
    }),
  })
  .openapi('Language');

const LanguageList = z
  .object({
    default: z
      .string()
      .openapi({ description: "The language of collections created without one (the server's TEXT_SEARCH_CONFIG).", example: 'english' }),
    languages: z.array(Language).openapi({ description: 'Every language a collection may have, by name.' }),
  })
  .openapi('LanguageList');

const routes = {
  list: createRoute({
    method: 'get',
    path: '/api/v1/languages',
    operationId: 'listLanguages',
    tags: ['Collections'],
    summary: 'List the languages a collection may have',
    description:
      "The choices of a collection's `language` (POST and PATCH /api/v1/collections): every text search configuration of the server, with how it indexes text. Any other name answers 400 VALIDATION_FAILED there. The same for every caller.",
    responses: { 200: jsonResponse(LanguageList, 'The languages, by name'), ...errorResponses([]) },
  }),
};

export function registerLanguageRoutes(app: App, deps: AppDeps): void {
  app.openapi(routes.list, async (c) =>
    c.json({ default: deps.config.TEXT_SEARCH_CONFIG, languages: await languageChoices(deps.sql) }, 200),
  );
}
