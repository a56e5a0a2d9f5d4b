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
have zsh || need+=(zsh)
have fish || need+=(fish)
have promtool || need+=(prometheus)
have systemd-analyze || need+=(systemd)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# Node 24 for test/node24.e2e-spec.ts (the README quick start on a supported LTS), from the npm
# registry's `node` package (docs/operator.md, "Node versions and the install").
if [ ! -x /opt/node24/node_modules/.bin/node ]; then
  echo "installing: node@24 into /opt/node24"
  npm install --prefix /opt/node24 --no-audit --no-fund --loglevel=error node@24 >/dev/null
fi
