# local edits, run in the fetched package
set -e
sed -i 's/        app: web/        app: web\n        tier: frontend/' Kptfile
