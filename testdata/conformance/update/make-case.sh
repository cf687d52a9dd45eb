#!/bin/sh
# make-case.sh CASE: makes local/, expected/, exit-code and kpt-output.txt of
# an update conformance case from its origin/ (upstream app/v1), updated/
# (upstream app/v2) and edit.sh (the local edits, run in the fetched
# package), with the real kpt (1.0.0-beta.56) and local git repositories:
#   kpt pkg get file://$UP.git/app@v1 app; (cd app && sh edit.sh)
#   kpt pkg update [--strategy=$(cat strategy)] app@v2
# Run from testdata/conformance/update; needs kpt and git on PATH.
set -eu
case_dir=$(cd "$1" && pwd)
name=$(basename "$case_dir")
work=${TMPDIR:-/tmp}/porchbot-update-cases; rm -rf "$work"; mkdir -p "$work"
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
trap 'rm -rf "$work"' EXIT
git_c() { git -c user.email=cases@porchbot.invalid -c user.name=cases "$@"; }

up=$work/upstream/$name
mkdir -p "$up/app"
(cd "$up" && git init -q && cp -R "$case_dir/origin/." app/ && git add -A && git_c commit -qm v1 && git tag app/v1 &&
  rm -rf app && mkdir app && cp -R "$case_dir/updated/." app/ && git add -A && git_c commit -q --allow-empty -m v2 && git tag app/v2)

down=$work/downstream
mkdir -p "$down"
cd "$down"
git init -q && git_c commit -q --allow-empty -m init
kpt pkg get "file://$up.git/app@v1" app >/dev/null 2>&1
(cd app && sh "$case_dir/edit.sh")
git add -A && git_c commit -q --allow-empty -m local
rm -rf "$case_dir/local" "$case_dir/expected"
cp -R app "$case_dir/local"
set +e
strategy=""
if [ -f "$case_dir/strategy" ]; then strategy="--strategy=$(cat "$case_dir/strategy")"; fi
kpt pkg update $strategy app@v2 >"$case_dir/kpt-output.txt" 2>&1
echo $? >"$case_dir/exit-code"
set -e
if [ "$(cat "$case_dir/exit-code")" = 0 ]; then cp -R app "$case_dir/expected"; fi
sed -i "s#$work#/tmp/porchbot-update-cases#g" "$case_dir/kpt-output.txt"
echo "$name: exit $(cat "$case_dir/exit-code")"
