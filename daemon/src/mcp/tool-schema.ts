import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from '@hono/zod-openapi';
import { fieldsFromIssues, validationError } from '../errors.js';

// A tool's input is the zod schema its REST route validates with: the same fields, caps, messages
// and descriptions, written once in routes/. These two functions are all MCP adds to it.

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema a tool lists (`inputSchema`, `outputSchema`): the zod schema with the OpenAPI
 * metadata of its fields (description, example, default, format), as the OpenAPI document shows
 * them. Draft-07, the dialect the MCP SDK's clients validate with. It holds no `$ref`: a field that refers
 * to an OpenAPI component (a search's `filter`) keeps its own type and description and drops the
 * reference, since several MCP clients refuse a tool whose schema they must resolve.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, {
    metadata: zodToOpenAPIRegistry as never,
    io,
    target: 'draft-7',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      const s = jsonSchema as JsonSchema;
      // zod-to-openapi's own bookkeeping (component names, path parameters) is no JSON Schema.
      delete s._internal;
      delete s.param;
      if (Array.isArray(s.allOf)) {
        s.allOf = s.allOf.filter((part: JsonSchema) => !('$ref' in part));
        if (!(s.allOf as unknown[]).length) delete s.allOf;
      }
      // OpenAPI's `example` is JSON Schema's `examples`.
      if ('example' in s) {
        s.examples = [s.example];
        delete s.example;
      }
    },
  });
}

/** A tool's arguments checked as REST checks a body: an unknown or bad one is 400 VALIDATION_FAILED naming it. */
export function parseToolArguments<T extends z.ZodType>(schema: T, args: unknown): z.output<T> {
  const r = schema.safeParse(args ?? {});
  if (!r.success) throw validationError(fieldsFromIssues(r.error.issues as never));
  return r.data;
}
