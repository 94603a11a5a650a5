#!/bin/sh
# Creates (or upgrades) the two PostgreSQL databases of the livecontext Temporal cluster with the server's
# own schema tool and the schemas embedded in it (so they are the versions the server expects).
# Used by docker-compose.yml (temporal-schema) and by `npm run test:cluster` (scripts/cluster/).
# Env: SQL_TOOL (default temporal-sql-tool), SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD.
set -eu
tool="${SQL_TOOL:-temporal-sql-tool}"
export SQL_PLUGIN=postgres12
for db in temporal:temporal temporal_visibility:visibility; do
  name="${db%%:*}"
  schema="postgresql/v12/${db##*:}"
  SQL_DATABASE="$name" "$tool" create-database 2>/dev/null || true # already there on a restart
  SQL_DATABASE="$name" "$tool" setup-schema -v 0.0
  SQL_DATABASE="$name" "$tool" update-schema --schema-name "$schema"
done
