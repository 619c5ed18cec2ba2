#!/bin/sh
# git_workload.sh - the git real-program e2e workload, run in an empty temp
# directory: init, add files, two commits with fixed identities and dates,
# log --stat, diff. Output is deterministic.
set -e
export GIT_AUTHOR_NAME="Scaler Test" GIT_AUTHOR_EMAIL=test@example.com
export GIT_COMMITTER_NAME="Scaler Test" GIT_COMMITTER_EMAIL=test@example.com
export GIT_AUTHOR_DATE="2024-01-02T03:04:05Z" GIT_COMMITTER_DATE="2024-01-02T03:04:05Z"
export GIT_CONFIG_NOSYSTEM=1 HOME=$PWD GIT_PAGER=cat TZ=UTC LC_ALL=C
git init -q -b main repo
cd repo
git config gc.auto 0
i=0
while [ $i -lt 40 ]; do
	printf 'file %d\nline two of %d\n' $i $i > f$i.txt
	i=$((i + 1))
done
mkdir sub && seq 1 500 > sub/numbers.txt
git add .
git commit -q -m "first commit"
seq 1 2 500 > sub/numbers.txt
echo changed >> f7.txt
git rm -q f3.txt
git diff --stat
git diff | head -40
git commit -q -a -m "second commit"
git log --stat
git rev-parse HEAD
