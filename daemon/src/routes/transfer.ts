import { createRoute, z } from '@hono/zod-openapi';
import { exportCollection } from '../transfer/export.js';
import { importCollection } from '../transfer/import.js';
import type { AppDeps } from '../types.js';
import { CollectionSchema } from './collections.js';
import { rawBody } from './documents.js';
import type { App } from './router.js';
import { errorResponses, jsonResponse, UuidParam } from './router.js';

const ARCHIVE = 'application/x-tar';

export const ImportResultSchema = z
  .object({
    collection: CollectionSchema,
    created_collection: z.boolean().openapi({ description: 'Whether this import created the collection (false: it added to one).' }),
    imported: z.number().int().openapi({ description: 'Documents created and queued for processing.', example: 42 }),
    already_present: z
      .number()
      .int()
      .openapi({ description: 'Documents an earlier import of the same archive into this collection already created.', example: 0 }),
    failed: z
      .array(
        z.object({
          uuid: z.string().openapi({ format: 'uuid', description: 'The document’s uuid in the export.' }),
          title: z.string(),
          reason: z.string().openapi({ example: 'Unsupported file type for "tool.exe" (application/octet-stream).' }),
        }),
      )
      .openapi({ description: 'Documents refused, each with the reason an upload of it would give.' }),
  })
  .openapi('CollectionImport');

const tags = ['Collections'];

const exportRoute = createRoute({
  method: 'get',
  path: '/api/v1/collections/{uuid}/export',
  operationId: 'exportCollection',
  tags,
  summary: 'Export a collection as an archive',
  description:
    'A tar archive, streamed: `manifest.jsonl` first (a line with the collection’s settings, then one per document: title, tags, metadata, file name, media type, SHA-256, and the text of text documents or the URL of URL documents), then `files/<uuid>`, the original of each file document. Read from one snapshot. Any key that can read the collection may export it (a scoped key needs a `read` or `write` grant). `POST /api/v1/collections/import/` rebuilds it on any docsift.',
  request: { params: UuidParam },
  responses: {
    200: {
      description: 'The archive (Content-Disposition names it `<slug>.docsift.tar`)',
      content: { [ARCHIVE]: { schema: z.string().openapi({ format: 'binary', example: '(tar archive)' }) } },
    },
    ...errorResponses(['COLLECTION_NOT_FOUND']),
  },
});

const ImportQuery = z.object({
  collection: z
    .string()
    .optional()
    .openapi({
      param: { name: 'collection', in: 'query' },
      format: 'uuid',
      description:
        'Import into this collection (write access needed: a full-access key on an owned collection, or a scoped key with a `write` grant). Without it a full-access key imports into the collection an earlier import of the same export created, or a new one.',
      example: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    }),
});

export function registerTransferRoutes(app: App, deps: AppDeps): void {
  app.openapi(exportRoute, async (c) => {
    const r = await exportCollection(deps, c.get('caller'), c.req.valid('param').uuid);
    return c.body(r.body, 200, {
      'content-type': ARCHIVE,
      'content-disposition': `attachment; filename="${r.filename}"`,
      'cache-control': 'private, no-store',
    }) as never;
  });

  // Documented in the registry but handled without a body validator, which would buffer the archive.
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/v1/collections/import',
    operationId: 'importCollection',
    tags,
    summary: 'Import an exported collection',
    description:
      'Rebuilds a collection from an archive of `GET /api/v1/collections/{uuid}/export/` (from this or another docsift, this version or an older one) through the normal upload pipeline: every document is checked as an upload is, stored and queued for processing. Importing the same archive again adds only what is missing (`already_present` counts the rest). The body is the archive itself, streamed; each original holds at most 50 MiB. A scoped key imports only into a collection it has a `write` grant on (`collection`); a full-access key may create one.',
    request: {
      query: ImportQuery,
      body: {
        required: true,
        description: 'The archive',
        content: { [ARCHIVE]: { schema: z.string().openapi({ format: 'binary', example: '(tar archive)' }) } },
      },
    },
    responses: {
      200: jsonResponse(ImportResultSchema, 'Imported; documents are processed in the background'),
      ...errorResponses([
        'VALIDATION_FAILED',
        'NO_FILE_PROVIDED',
        'SCOPED_KEY_FORBIDDEN',
        'WRITE_ACCESS_REQUIRED',
        'COLLECTION_NOT_FOUND',
        'UPLOAD_FAILED',
      ]),
    },
  });
  app.post('/api/v1/collections/import', async (c) => {
    const collection = c.req.query('collection');
    const r = await importCollection(deps, c.get('caller'), rawBody(c).body, collection ? { collection } : {});
    return c.json(r, 200);
  });
}
