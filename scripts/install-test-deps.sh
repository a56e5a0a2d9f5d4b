#!/usr/bin/env bash
# Installs the Debian packages the end-to-end tests and benchmarks drive, when missing.
set -euo pipefail
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have redis-server || need+=(redis-server)
have unbound || need+=(unbound)
have named || need+=(bind9)
have dnssec-signzone || need+=(bind9-utils)
have dig || need+=(bind9-dnsutils)
have nginx || need+=(nginx-light)
have wrk || need+=(wrk)
[ -x /usr/bin/aws ] || need+=(awscli)
have rclone || need+=(rclone)
[ -x /usr/bin/chromium ] || need+=(chromium)
have clang-19 || need+=(clang-19)
have ceph-mon || need+=(ceph-mon)
have ceph-osd || need+=(ceph-osd)
have radosgw || need+=(radosgw)
have ceph || need+=(ceph-common)
have caddy || need+=(caddy)
have promtool || need+=(prometheus)
have systemd-analyze || need+=(systemd)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
