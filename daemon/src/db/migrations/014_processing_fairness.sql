-- Per-organization fairness of the processing queue (services/processing-queue.ts): a new
-- processing job is ranked by how many documents its organization already has pending. These
-- indexes keep that count a short index walk, however large other organizations' backlogs are.
create index documents_pending_idx on documents (collection_id) where status = 'pending' and deleted_at is null;
create index collections_organization_idx on collections (organization_id);
