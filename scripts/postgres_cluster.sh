#!/usr/bin/env bash
# A local throwaway PostgreSQL cluster for development and CI, from Debian's postgresql package.
#
#   scripts/postgres_cluster.sh start DIR   initdb into DIR when it is empty, start the server on a
#                                           socket in DIR and on 127.0.0.1:$PGPORT (default 54329),
#                                           create the database claims_crew, print its URL
#   scripts/postgres_cluster.sh stop DIR    stop it (DIR is kept; delete it to start afresh)
#
#   CLAIMS_CREW_DATABASE_URL=$(scripts/postgres_cluster.sh start /tmp/pg) uv run claims-crew ...
#
# Trust authentication, no durability (fsync off): for tests and trials, never for real data.
# PostgreSQL refuses to run as root, so under root the server runs as the `postgres` user.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop DIR" >&2
  exit 2
}
[ "$#" -eq 2 ] || usage
action=$1
port=${PGPORT:-54329}
if [ "$action" = start ]; then mkdir -p "$2"; fi
dir=$(cd "$2" && pwd)
# The server's user may not be able to read the caller's folder (root's home).
cd "$dir"

# Debian keeps the server's programs out of PATH, one folder per major version: take the newest.
initdb=$(command -v initdb ||
  ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$initdb" ]; then
  echo "initdb not found: install Debian's postgresql package" >&2
  exit 1
fi
bin=$(dirname "$(readlink -f "$initdb")")

as_server() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "$action" in
  start)
    if [ ! -f "$dir/PG_VERSION" ]; then
      if [ "$(id -u)" -eq 0 ]; then
        chown postgres: "$dir"
        as_server test -w "$dir" || {
          echo "the postgres user cannot reach $dir: pick a folder outside root's home" >&2
          exit 1
        }
      fi
      as_server "$bin/initdb" --pgdata="$dir" --username=postgres --auth=trust \
        --encoding=UTF8 --locale=C --no-sync >&2
      cat >>"$dir/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
    fi
    if ! as_server "$bin/pg_ctl" --pgdata="$dir" status >/dev/null; then
      as_server "$bin/pg_ctl" --pgdata="$dir" --log="$dir/server.log" -o "-p $port" -w start >&2
    fi
    as_server "$bin/psql" -h "$dir" -p "$port" -U postgres -d postgres -qtA \
      -c "SELECT 1 FROM pg_database WHERE datname = 'claims_crew'" | grep -q 1 ||
      as_server "$bin/createdb" -h "$dir" -p "$port" -U postgres claims_crew
    echo "postgresql+psycopg://postgres@127.0.0.1:$port/claims_crew"
    ;;
  stop)
    as_server "$bin/pg_ctl" --pgdata="$dir" -m fast -w stop >&2
    ;;
  *)
    usage
    ;;
esac
