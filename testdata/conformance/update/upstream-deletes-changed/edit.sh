# local edits, run in the fetched package
set -e
sed -i 's/LOG_LEVEL: info/LOG_LEVEL: debug/' configmap.yaml
