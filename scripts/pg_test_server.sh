#!/usr/bin/env bash
# A throwaway PostgreSQL server for the shared-store tests: Unix socket only, no password, fsync off.
# Usage: scripts/pg_test_server.sh start DIR   (prints the connection URL)
#        scripts/pg_test_server.sh stop DIR
set -euo pipefail
action=${1:?usage: pg_test_server.sh start|stop DIR}
dir=${2:?usage: pg_test_server.sh start|stop DIR}
port=${FASTCI_TEST_POSTGRES_PORT:-54329}

bin=""
for candidate in /usr/lib/postgresql/*/bin; do [ -x "$candidate/pg_ctl" ] && bin=$candidate; done
[ -n "$bin" ] || { echo "pg_test_server: PostgreSQL server binaries not found" >&2; exit 1; }

# initdb refuses to run as root: the server then runs as the postgres account, in a folder it owns.
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || { echo "pg_test_server: running as root and no postgres account" >&2; exit 1; }
  as_owner=(runuser -u postgres --)
fi

case "$action" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres "$dir"
    "${as_owner[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start \
      -o "-k $dir -p $port -c listen_addresses='' -c fsync=off -c max_connections=100" >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://postgres@/postgres?host=$dir&port=$port"
    ;;
  stop)
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: pg_test_server.sh start|stop DIR" >&2
    exit 2
    ;;
esac
