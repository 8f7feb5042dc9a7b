import type { Tx } from '../db/client.js';

/**
 * Builds the full-text side of a document's freshly inserted chunks (called in the same
 * transaction as the chunk insert). The BM25 postings arrive with the search issue.
 */
export async function indexChunks(_tx: Tx, _textConfig: string, _documentId: string, _title: string): Promise<void> {}
