# A throwaway PostgreSQL cluster for the tests (sourced by .ci/run; also by hand:
# `source .ci/postgres.sh && start_test_postgres`, then `stop_test_postgres`).
#
# The Debian package's initdb/pg_ctl (installed when missing and we are root), a cluster in a
# temp folder owned by the `postgres` user when we are root (initdb refuses to run as root),
# listening on a Unix socket in that folder only (no TCP port), trust authentication, fsync off
# (nothing in it outlives the run). Exports HORIZON_TEST_POSTGRES_URL for the tests
# (tests/storage/conftest.py reads it) and sets HORIZON_TEST_POSTGRES_DIR for stopping.

_pg_bin() {
    local found
    found=$(command -v pg_ctl 2>/dev/null || true)
    if [ -n "$found" ]; then dirname "$(readlink -f "$found")"; return; fi
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$found" ] && [ -x "$found/pg_ctl" ] && echo "$found"
}

_pg_as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_test_postgres() {
    local bin dir
    bin=$(_pg_bin || true)
    if [ -z "$bin" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== PostgreSQL: installing the Debian package (apt-get install -y postgresql)"
        { timeout 300 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 300 \
            apt-get install -y -qq postgresql; } >/dev/null 2>&1 || true
        bin=$(_pg_bin || true)
    fi
    if [ -z "$bin" ]; then
        echo "== PostgreSQL: not available (no initdb/pg_ctl); the PostgreSQL tests will be skipped"
        return 0
    fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "== PostgreSQL: no 'postgres' user to run the cluster as; the PostgreSQL tests will be skipped"
        return 0
    fi
    dir=$(mktemp -d /tmp/horizon-pg.XXXXXX)
    chmod 0700 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    if ! _pg_as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 \
            --no-sync >"$dir/initdb.log" 2>&1; then
        echo "== PostgreSQL: initdb failed (see below); the PostgreSQL tests will be skipped"
        tail -n 5 "$dir/initdb.log" || true
        rm -rf "$dir"
        return 0
    fi
    if ! _pg_as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off \
                -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
            start >/dev/null 2>&1; then
        echo "== PostgreSQL: the server did not start; the PostgreSQL tests will be skipped"
        tail -n 5 "$dir/server.log" || true
        rm -rf "$dir"
        return 0
    fi
    _pg_as_owner "$bin/createdb" -h "$dir" -U postgres horizon_test
    export HORIZON_TEST_POSTGRES_DIR="$dir"
    export HORIZON_TEST_POSTGRES_URL="postgresql://postgres@/horizon_test?host=$dir"
    echo "== PostgreSQL: $("$bin/postgres" --version) on the socket in $dir (HORIZON_TEST_POSTGRES_URL)"
}

stop_test_postgres() {
    local dir=${HORIZON_TEST_POSTGRES_DIR:-} bin
    [ -n "$dir" ] || return 0
    bin=$(_pg_bin || true)
    [ -n "$bin" ] && _pg_as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    unset HORIZON_TEST_POSTGRES_DIR HORIZON_TEST_POSTGRES_URL
}
