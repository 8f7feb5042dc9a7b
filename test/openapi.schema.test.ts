import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { ERROR_CODES } from '../daemon/src/errors.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';

describe('OpenAPI document', () => {
  let d: TestDaemon;
  let served: any;
  before(async () => {
    d = await startTestDaemon({ label: 'openapi' });
    const r = await http(d.url)('GET', '/api/v1/schema/');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /application\/json/);
    served = r.body;
  });
  after(async () => d?.close());

  it('is served without auth and validates as OpenAPI 3.0', async () => {
    assert.match(served.openapi, /^3\.0\./);
    // validate() dereferences in place, so give it a copy.
    await SwaggerParser.validate(structuredClone(served));
  });

  it('matches the committed openapi/openapi.json (run `npm run openapi:emit`)', async () => {
    const committed = JSON.parse(await readFile(new URL('../openapi/openapi.json', import.meta.url), 'utf8'));
    assert.deepEqual(served, committed);
  });

  it('declares bearer security and the error envelope with every error code', () => {
    assert.deepEqual(served.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: served.components.securitySchemes.bearerAuth.description,
    });
    assert.deepEqual(served.security, [{ bearerAuth: [] }]);
    const env = served.components.schemas.ErrorEnvelope;
    assert.deepEqual([...env.properties.code.enum].sort(), [...ERROR_CODES].sort());
    assert.deepEqual(env.required.sort(), ['code', 'error']);
  });

  it('every operation documents its error responses with the envelope', () => {
    for (const [p, item] of Object.entries<any>(served.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const statuses = Object.keys(op.responses);
        assert.ok(
          statuses.some((s) => s.startsWith('2') || s === '302'),
          `${method} ${p} has a success response`,
        );
        assert.ok(statuses.includes('500'), `${method} ${p} documents 500`);
        if (!op.security || op.security.length) assert.ok(statuses.includes('401'), `${method} ${p} documents 401`);
      }
    }
  });
});
