# local edits, run in the fetched package
set -e
sed -i "s/replicas: 1/replicas: 4/" deployment.yaml
