// Documents with tags and metadata for the facet tests (search and list).
import assert from 'node:assert/strict';
import type { http } from './daemon.js';

export const DOCS = [
  {
    title: 'L1',
    content: 'Termination of the supply contract.',
    tags: 'contracts,legal',
    metadata: { dept: 'legal', year: 2024, kinds: ['nda', 'msa'] },
  },
  { title: 'L2', content: 'Contract termination notice period.', tags: 'contracts', metadata: { dept: 'legal', year: 2023, urgent: true } },
  {
    title: 'F1',
    content: 'Termination fees in the finance contract.',
    tags: 'finance',
    metadata: { dept: 'finance', year: 2024, kinds: ['msa'] },
  },
  { title: 'X1', content: 'Holiday schedule for the office.', tags: 'hr', metadata: { dept: 'hr' } },
];

export async function addDoc(req: ReturnType<typeof http>, key: string, collection: string, doc: (typeof DOCS)[number]) {
  const r = await req('POST', `/api/v1/collections/${collection}/documents/`, { key, json: { source_type: 'text', ...doc } });
  assert.equal(r.status, 201, r.text);
  return r.body.uuid as string;
}
