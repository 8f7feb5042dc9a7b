-- The collection an import (POST /api/v1/collections/import/) rebuilt: the uuid of the exported
-- collection, on the source instance. Importing the same archive again finds this collection and
-- adds only what it lacks, so a re-import is idempotent; one live collection per owner and source.
alter table collections add column imported_from uuid;
create unique index collections_imported_from on collections (owner_id, imported_from)
  where imported_from is not null and deleted_at is null;
