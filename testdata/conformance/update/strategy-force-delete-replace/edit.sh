# local edits, run in the fetched package
set -e
sed -i "s/replicas: 1/replicas: 4/" deployment.yaml
printf "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: local-only\n" > local.yaml
