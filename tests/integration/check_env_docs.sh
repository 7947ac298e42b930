#!/usr/bin/env bash
# Every variable in the runtime's table (runtime/src/config_vars.h) is documented in the user guide
# with the same default, and the guide lists no variable the runtime does not know.
set -euo pipefail
src=$1
table=$src/runtime/src/config_vars.h guide=$src/docs/guide/environment.rst
fails=0
while read -r name default; do
  if ! grep -A1 "^   \* - \`\`$name\`\`" "$guide" | grep -q "\`\`$default\`\`"; then
    echo "docs/guide/environment.rst: $name with default $default is missing"; fails=1
  fi
done < <(grep -oE '\{"ISHMEM_[A-Z_]+", "[^"]*"' "$table" | sed -E 's/\{"([A-Z_]+)", "([^"]*)"/\1 \2/')
for name in $(grep -oE '^   \* - ``ISHMEM_[A-Z_]+``' "$guide" | grep -oE 'ISHMEM_[A-Z_]+'); do
  grep -q "\"$name\"" "$table" || { echo "docs/guide/environment.rst documents unknown $name"; fails=1; }
done
[ $fails -eq 0 ] && echo "environment variables documented: ok"
exit $fails
