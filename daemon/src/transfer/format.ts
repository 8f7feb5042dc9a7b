// The collection export format, version 1: a tar archive of
//   manifest.jsonl   first: a collection line (the settings), then one line per document
//   files/<uuid>     the original of each file document, in manifest order
// Text documents carry their text in their line; URL documents only their URL (an import fetches
// it again). An importer reads lines it does not know the fields of, and refuses a newer version.
import { createHash } from 'node:crypto';

export const FORMAT = 'docsift-collection-export';
export const VERSION = 1;
export const MANIFEST_ENTRY = 'manifest.jsonl';
export const fileEntry = (documentId: string) => `files/${documentId}`;
export const FILE_ENTRY = /^files\/([0-9a-f-]{36})$/;

export interface CollectionLine {
  type: 'collection';
  format: typeof FORMAT;
  version: number;
  exported_at: string;
  docsift_version: string;
  collection: { uuid: string; name: string; slug: string; description: string; language: string; is_public: boolean };
  documents: number;
}

export interface DocumentLine {
  type: 'document';
  uuid: string;
  title: string;
  source_type: string;
  status: string;
  tags: string[];
  metadata: Record<string, unknown>;
  original_filename: string;
  media_type: string;
  file_size: number;
  content_sha256: string | null;
  source_url: string | null;
  created_at: string;
  /** The entry holding the original (file documents). */
  file: string | null;
  /** The text (text documents). */
  content?: string;
}

/**
 * The uuid a document gets when imported into `collectionId`: derived from both, so importing the
 * same archive into the same collection again names the same documents and adds none twice.
 * An RFC 9562 version 8 (custom) uuid: the first 16 bytes of a SHA-256.
 */
export function importedDocumentId(collectionId: string, sourceId: string): string {
  const b = createHash('sha256').update(`docsift-import:${collectionId}:${sourceId}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
