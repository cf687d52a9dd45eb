# local edits, run in the fetched package
set -e
sed -i 's/LOG_LEVEL: info/LOG_LEVEL: info # raised when debugging/' configmap.yaml
sed -i 's/^spec:/spec: # edited downstream/' deployment.yaml
