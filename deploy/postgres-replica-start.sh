#!/bin/bash
# docker-compose.scale.yml, replica: on the first start, copy the primary with `pg_basebackup -R`
# (standby.signal + primary_conninfo), then run as a hot standby that streams from it.
set -euo pipefail
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -h postgres -U docsift -d docsift; do sleep 1; done
  pg_basebackup -h postgres -U docsift -D "$PGDATA" -R -X stream --checkpoint=fast
  chmod 0700 "$PGDATA"
fi
exec postgres -c hot_standby=on
