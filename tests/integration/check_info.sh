#!/usr/bin/env bash
# ishmem-info prints every variable of the runtime's table (runtime/src/config_vars.h, read here the
# way check_env_docs.sh reads it) with its default, in text and in JSON that parses; a variable set in
# the environment shows as its current value; --help exits 0 and an unknown option 2.
# usage: check_info.sh ISHMEM_INFO SOURCE_DIR
set -euo pipefail
info=$1 src=$2
table=$src/runtime/src/config_vars.h
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=1; }

grep -oE '\{"ISHMEM_[A-Z_]+", "[^"]*"' "$table" | sed -E 's/\{"([A-Z_]+)", "([^"]*)"/\1 \2/' > "$tmp/vars"
[ -s "$tmp/vars" ] || { echo "FAIL: no variables found in $table"; exit 1; }
# A clean environment for the table's variables, but one set: it must show as its current value.
unset $(cut -d' ' -f1 "$tmp/vars")
export ISHMEM_SYMMETRIC_SIZE=64M

"$info" > "$tmp/text" || fail "ishmem-info exited with $?"
"$info" --json > "$tmp/json" || fail "ishmem-info --json exited with $?"

while read -r name default; do
  want=$([ "$name" = ISHMEM_SYMMETRIC_SIZE ] && echo 64M || echo '(default)')
  pattern=${default//\*/\\*}  # the default as a literal in the pattern (it may hold * or +)
  pattern=${pattern//+/\\+}
  grep -qE "^  $name +default $pattern +current ${want//[()]/.}\$" "$tmp/text" ||
    fail "text: no line '$name default $default current $want'"
done < "$tmp/vars"

/usr/bin/python3 - "$tmp/json" "$tmp/vars" <<'PY' || fails=1
import json, sys
doc = json.load(open(sys.argv[1]))  # must parse
table = [line.split(" ", 1) for line in open(sys.argv[2]).read().splitlines()]
env = {v["name"]: v for v in doc["environment"]}
bad = []
if [v["name"] for v in doc["environment"]] != [n for n, _ in table]:
    bad.append("environment names %s differ from the table %s" % (list(env), [n for n, _ in table]))
for name, default in table:
    v = env.get(name)
    want = "64M" if name == "ISHMEM_SYMMETRIC_SIZE" else None
    if v is None or v["default"] != default or v["value"] != want or not v["doc"]:
        bad.append("json: %s: %r, want default %r value %r" % (name, v, default, want))
for key in ("ishmem", "build", "cuda", "mpi"):
    if key not in doc:
        bad.append("json: no %r" % key)
if "host" not in doc["build"]["backends"]:
    bad.append("json: host backend missing")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

"$info" --help > /dev/null || fail "--help exited with $?"
rc=0; "$info" --no-such-option > /dev/null 2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] || fail "an unknown option exited with $rc, not 2"
grep -q "unknown option '--no-such-option'" "$tmp/err" || fail "an unknown option is not named on stderr"

[ $fails -eq 0 ] && echo "ishmem-info text and JSON: ok"
exit $fails
