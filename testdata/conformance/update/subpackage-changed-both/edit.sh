# local edits, run in the fetched package
set -e
sed -i 's/replicas: 1/replicas: 2/' db/statefulset.yaml
