# local edits, run in the fetched package
set -e
sed -i '0,/LOG_LEVEL: info/s//LOG_LEVEL: debug/' configmap.yaml
