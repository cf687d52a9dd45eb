# local edits, run in the fetched package
set -e
cat >> deployment.yaml <<'E'
        - name: logger
          image: fluentbit:3
E
