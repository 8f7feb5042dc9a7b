#!/bin/bash
# docker-compose.scale.yml, primary: let the replica stream WAL (run once, by the image's first start).
set -euo pipefail
echo "host replication docsift all scram-sha-256" >> "$PGDATA/pg_hba.conf"
