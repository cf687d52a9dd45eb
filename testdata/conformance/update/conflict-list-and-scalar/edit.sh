# local edits, run in the fetched package
set -e
sed -i 's/replicas: 1/replicas: 3/; s/"--port=80"\]/"--port=80", "--verbose"]/' deployment.yaml
