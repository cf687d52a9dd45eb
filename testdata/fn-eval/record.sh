#!/usr/bin/env bash
# Records what catalog releases print for the ResourceLists here: each
# case's input.yaml is handed to each release its `releases` file names (one
# version a line) on stdin, and the release's stdout, stderr and exit code
# are kept in <version>/. See README.md.
#
#   testdata/fn-eval/record.sh [<function>/<case> ...]
#
# The releases are the binaries testdata/builtin-versions/generate.sh builds
# from the catalog's source, $WORK/bin/<function>@<version> (default WORK
# /tmp/builtin-versions).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/builtin-versions}
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for d in "$here"/*/*/input.yaml; do d=${d%/input.yaml}; cases+=("${d#$here/}"); done
fi
for c in "${cases[@]}"; do
  fn=${c%%/*}
  while read -r v; do
    [ -n "$v" ] || continue
    bin=$WORK/bin/$fn@$v
    [ -x "$bin" ] || { echo "$bin: build it first (testdata/builtin-versions/generate.sh, a case of $fn $v)" >&2; exit 1; }
    out=$here/$c/$v; mkdir -p "$out"
    set +e; "$bin" < "$here/$c/input.yaml" > "$out/output.yaml" 2> "$out/stderr"; code=$?; set -e
    echo "$code" > "$out/exit-code"
    echo "$c: $fn $v exit $code" >&2
  done < "$here/$c/releases"
done
