# local edits, run in the fetched package
set -e
printf '\nLocal notes.\n' >> README.md
