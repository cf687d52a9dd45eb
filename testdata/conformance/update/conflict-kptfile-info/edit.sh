# local edits, run in the fetched package
set -e
sed -i 's/description: sample app/description: our app/' Kptfile
