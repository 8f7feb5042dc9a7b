/**
 * The HTTP API's version: the OpenAPI document's `info.version` (served at /api/v1/schema/). A module
 * of its own, so anything may name it without importing the routes.
 */
export const API_VERSION = '1.0.0';
