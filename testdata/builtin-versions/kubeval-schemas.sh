#!/usr/bin/env bash
# Stands in for the openapi2jsonschema that kubeval's image runs on the
# OpenAPI document it bundles (which the catalog's history no longer holds):
# called as the release calls it, `... -o <dir> <document>`, it writes into
# <dir> (/tmp/master-standalone or /tmp/master-standalone-strict) the schemas
# of the case's directory $KUBEVAL_SCHEMAS/<the same name>, which porchbot's
# golden test reads as the server's schema directory (case.yaml `schemas:`).
set -euo pipefail
out=""
while [ $# -gt 0 ]; do
  case $1 in -o) out=$2; shift 2 ;; *) shift ;; esac
done
[ -n "$out" ] || { echo "kubeval-schemas.sh: no -o" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"
if [ -d "${KUBEVAL_SCHEMAS:-}/$(basename "$out")" ]; then
  cp "$KUBEVAL_SCHEMAS/$(basename "$out")"/*.json "$out"/
fi
