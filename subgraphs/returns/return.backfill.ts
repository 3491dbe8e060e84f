// Moved to return.json.ts (the documents a webhook backfill reads, beside their schemas). This re-export
// stays only while index.ts, which is being rewritten, imports it from here: point that import at
// ./return.json.js, then delete this file.
export { returnDocumentsPage } from './return.json.js';
