#!/bin/sh
# Registers the livecontext namespace and its search attributes (all Keyword; the names are those of
# workflows/messages.ts SEARCH_ATTRIBUTES, which test/unit/docker-compose.test.ts checks), then waits until
# the frontend accepts a query by them, as an agent's start will need.
# Used by docker-compose.yml (temporal-namespace) and by `npm run test:cluster` (scripts/cluster/).
# Env: TEMPORAL_ADDRESS, TEMPORAL_CLI (default temporal), NAMESPACE (default default), RETENTION (default 72h).
set -eu
cli="${TEMPORAL_CLI:-temporal}"
ns="${NAMESPACE:-default}"
attributes="LivecontextRunState LivecontextModel LivecontextProvider LivecontextForkedFrom"

# Retries a command for up to $1 seconds (the services may still be joining).
retry() {
  limit="$1"; shift
  i=0
  until out=$("$@" 2>&1); do
    i=$((i + 1))
    if [ "$i" -ge $((limit * 2)) ]; then echo "$out" >&2; return 1; fi
    sleep 0.5
  done
}


# Creates one Keyword search attribute; one that exists already counts as created (a second run).
create_attribute() {
  created=$("$cli" operator search-attribute create --namespace "$ns" --name "$1" --type Keyword 2>&1) && return 0
  echo "$created" | grep -qi 'already'
}

retry 180 "$cli" operator namespace describe --namespace temporal-system
"$cli" operator namespace describe --namespace "$ns" >/dev/null 2>&1 || retry 30 "$cli" operator namespace create --namespace "$ns" --retention "${RETENTION:-72h}"
query=""
for name in $attributes; do
  retry 60 create_attribute "$name"
  query="${query:+$query AND }$name = 'x'"
done
retry 120 "$cli" workflow list --namespace "$ns" --limit 1 --query "$query"
echo "namespace $ns with search attributes $attributes"
