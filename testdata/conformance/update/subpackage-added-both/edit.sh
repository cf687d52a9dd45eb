# local edits, run in the fetched package
set -e
mkdir db && cp Kptfile db/Kptfile && sed -i '/^upstream/,$d' db/Kptfile
