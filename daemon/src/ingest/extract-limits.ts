import type { Config } from '../config.js';
import type { ExtractLimits } from './extract.js';

/** The per-document extraction limits of a configuration: the extraction threads', and an inline text's. */
export function extractLimits(
  config: Pick<Config, 'EXTRACT_MAX_PDF_PAGES' | 'EXTRACT_MAX_UNPACKED_MB' | 'EXTRACT_MAX_TEXT_CHARS' | 'EXTRACT_MEMORY_MB'>,
): ExtractLimits {
  return {
    maxPdfPages: config.EXTRACT_MAX_PDF_PAGES,
    maxUnpackedBytes: config.EXTRACT_MAX_UNPACKED_MB * 1024 * 1024,
    maxImageBytes: config.EXTRACT_MEMORY_MB * 1024 * 1024,
    maxTextChars: config.EXTRACT_MAX_TEXT_CHARS,
  };
}
