# local edits, run in the fetched package
set -e
rm configmap.yaml
