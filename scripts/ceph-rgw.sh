#!/usr/bin/env bash
# A throwaway single-node Ceph cluster with the RADOS Gateway (S3) on loopback, for tests.
#
#   scripts/ceph-rgw.sh start DIR   one mon, one OSD (memstore: data in RAM), one radosgw, every
#                                   path inside DIR; prints KEY=VALUE lines (S3 endpoint, keys,
#                                   PIDs) once S3 answers, also written to DIR/env
#   scripts/ceph-rgw.sh stop DIR    stops rgw, osd, mon (SIGTERM, SIGKILL after 3 s), by PID
#   scripts/ceph-rgw.sh stop-rgw DIR / start-rgw DIR
#                                   only the S3 front end (an outage; the data stays in the OSD)
#
# Ports: MON_PORT and RGW_PORT (default: free ports). Keys: ACCESS_KEY/SECRET_KEY (defaults
# below) for the user `tape`, READ_ACCESS_KEY/READ_SECRET_KEY for its read-only subuser
# `tape:reader` (GET, HEAD, List; PUT and DELETE answer AccessDenied; Ceph 16 still lets it
# create buckets of its own). MEMSTORE_BYTES: the OSD's RAM store (default 2 GiB). Settings from ../shared/FIELD-NOTES.md, "Ceph RGW on one machine". Packages:
# ceph-mon ceph-osd radosgw ceph-common (scripts/install-test-deps.sh).
set -euo pipefail

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

stop_pid() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 30); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

wait_s3() {
  local endpoint=$1
  # A bare 200 can be another server: wait for the S3 listing body.
  for i in $(seq 300); do
    if curl -s --max-time 1 "$endpoint/" 2>/dev/null | grep -q ListAllMyBucketsResult; then return 0; fi
    [ "$i" = 300 ] && return 1
    sleep 0.1
  done
}

if [ "$cmd" = stop-rgw ]; then
  [ -f "$dir/rgw.pid" ] && stop_pid "$(cat "$dir/rgw.pid")"
  rm -f "$dir/rgw.pid"
  exit 0
fi
if [ "$cmd" = start-rgw ]; then
  radosgw -c "$dir/ceph.conf" -n client.rgw -f >>"$dir/log/rgw.out" 2>&1 &
  echo $! >"$dir/rgw.pid"
  port=$(sed -n 's/^RGW_PORT=//p' "$dir/env")
  wait_s3 "http://127.0.0.1:$port" || { echo "radosgw did not come back" >&2; exit 1; }
  echo "RGW_PID=$(cat "$dir/rgw.pid")"
  exit 0
fi

if [ "$cmd" = stop ]; then
  for name in rgw osd mon; do
    [ -f "$dir/$name.pid" ] && stop_pid "$(cat "$dir/$name.pid")"
    rm -f "$dir/$name.pid"
  done
  exit 0
fi
[ "$cmd" = start ] || { echo "unknown command: $cmd" >&2; exit 2; }

mkdir -p "$dir"/{run,log,mon,osd,rgw}
dir=$(cd "$dir" && pwd)
mon_port=${MON_PORT:-$(free_port)}
rgw_port=${RGW_PORT:-$(free_port)}
access_key=${ACCESS_KEY:-TAPETESTACCESSKEY000}
secret_key=${SECRET_KEY:-tapetestsecretkey0000000000000000000000}
read_access_key=${READ_ACCESS_KEY:-TAPETESTREADONLYKEY0}
read_secret_key=${READ_SECRET_KEY:-tapetestreadonlysecret00000000000000000}
memstore_bytes=${MEMSTORE_BYTES:-2147483648}
fsid=$(cat /proc/sys/kernel/random/uuid)
osd_uuid=$(cat /proc/sys/kernel/random/uuid)
conf="$dir/ceph.conf"

cat >"$conf" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon_port]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr1 = false
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
osd pool default pg num = 8
osd pool default pgp num = 8
mon warn on pool no redundancy = false
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
mon data = $dir/mon/\$cluster-\$id
osd data = $dir/osd/\$cluster-\$id
osd objectstore = memstore
memstore device bytes = $memstore_bytes
[client]
# tcp_nodelay: without it beast answers small objects (a 128-byte chunk list) on a kept-alive
# connection ~40 ms late (Nagle against the client's delayed ACK); docs/operator.md.
ms mon client mode = crc
objecter tick interval = 0.5
rgw frontends = beast endpoint=127.0.0.1:$rgw_port tcp_nodelay=1
rgw data = $dir/rgw
EOF

monmaptool --create --clobber --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >/dev/null 2>&1
ceph-mon -c "$conf" -i a -f >"$dir/log/mon.out" 2>&1 &
echo $! >"$dir/mon.pid"

osd_id=$(timeout 30 ceph -c "$conf" osd new "$osd_uuid" 2>>"$dir/log/ceph-cli.err")
mkdir -p "$dir/osd/ceph-$osd_id"
ceph-osd -c "$conf" -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" >/dev/null 2>&1
ceph-osd -c "$conf" -i "$osd_id" -f >"$dir/log/osd.out" 2>&1 &
echo $! >"$dir/osd.pid"

radosgw -c "$conf" -n client.rgw -f >"$dir/log/rgw.out" 2>&1 &
echo $! >"$dir/rgw.pid"

endpoint="http://127.0.0.1:$rgw_port"
if ! wait_s3 "$endpoint"; then
  echo "radosgw did not answer on $endpoint (logs in $dir/log)" >&2
  "$0" stop "$dir"
  exit 1
fi

timeout 30 radosgw-admin -c "$conf" -n client.rgw user create --uid tape --display-name tape \
  --access-key "$access_key" --secret-key "$secret_key" >/dev/null 2>>"$dir/log/ceph-cli.err"
timeout 30 radosgw-admin -c "$conf" -n client.rgw subuser create --uid tape --subuser tape:reader \
  --access read --key-type s3 --access-key "$read_access_key" --secret-key "$read_secret_key" \
  >/dev/null 2>>"$dir/log/ceph-cli.err"

{
  echo "S3_ENDPOINT=$endpoint"
  echo "S3_ACCESS_KEY=$access_key"
  echo "S3_SECRET_KEY=$secret_key"
  echo "S3_READ_ACCESS_KEY=$read_access_key"
  echo "S3_READ_SECRET_KEY=$read_secret_key"
  echo "RGW_PORT=$rgw_port"
  echo "MON_PORT=$mon_port"
  echo "RGW_PID=$(cat "$dir/rgw.pid")"
  echo "OSD_PID=$(cat "$dir/osd.pid")"
  echo "MON_PID=$(cat "$dir/mon.pid")"
} | tee "$dir/env"
