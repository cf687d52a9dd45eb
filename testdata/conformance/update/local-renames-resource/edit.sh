# local edits, run in the fetched package
set -e
sed -i 's/  name: web-config/  name: web-config-prod/' configmap.yaml
