# Sourced by bench/multinode/ab_rounds.sh from the repository root: on a machine without iproute2,
# `ip` comes from Debian packages placed in .deps/debs (iproute2 and its libraries, fetched with
# `apt-get download`), run through the dynamic loader with their libraries, for
# tests/multinode/netns_mpirun.sh's namespaces.
if ! command -v ip >/dev/null; then
  mkdir -p /tmp/iproute/wrap && for f in .deps/debs/*.deb; do dpkg -x "$f" /tmp/iproute; done
  printf '#!/bin/sh\nexec /lib64/ld-linux-x86-64.so.2 --library-path /tmp/iproute/lib/x86_64-linux-gnu:/tmp/iproute/usr/lib/x86_64-linux-gnu /tmp/iproute/bin/ip "$@"\n' > /tmp/iproute/wrap/ip
  chmod +x /tmp/iproute/wrap/ip; export PATH=/tmp/iproute/wrap:$PATH
fi
