#!/usr/bin/env bash
# Sets everything up, builds, creates a demo store holding the `webtable`
# example of the HBase reference guide (three families, versions at the
# documented timestamps t3..t9), mounts it at ./demo/mnt and shows it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

demo="$(pwd)/demo"
store="$demo/store" mnt="$demo/mnt"
if grep -qs " $mnt " /proc/mounts; then fusermount3 -u "$mnt"; fi
rm -rf "$store"
mkdir -p "$mnt"

echo "== creating $store with cellsh"
./build/tools/cellsh "$store" <<'HBASE'
create 'webtable', {NAME => 'contents', VERSIONS => 3}, {NAME => 'anchor', VERSIONS => 3}, {NAME => 'people', VERSIONS => 3}
put 'webtable', 'com.cnn.www', 'contents:html', '<html>CNN, version t3</html>', 3
put 'webtable', 'com.cnn.www', 'contents:html', '<html>CNN, version t5</html>', 5
put 'webtable', 'com.cnn.www', 'contents:html', '<html>CNN, version t6</html>', 6
put 'webtable', 'com.cnn.www', 'anchor:my.look.ca', 'CNN.com', 8
put 'webtable', 'com.cnn.www', 'anchor:cnnsi.com', 'CNN', 9
put 'webtable', 'com.example.www', 'contents:html', '<html>Example</html>', 5
put 'webtable', 'com.example.www', 'people:author', 'John Doe', 5
scan 'webtable', {VERSIONS => 3}
HBASE

echo
echo "== mounting at $mnt"
./build/fusefs/cellfs "$store" "$mnt"
for _ in $(seq 50); do grep -qs " $mnt " /proc/mounts && break; sleep 0.1; done

t="$mnt/default/webtable"
run() { echo "\$ $*"; "$@"; echo; }
run ls -R "$t"
run cat "$t/.schema"
run cat "$t/com.cnn.www/contents/html"
run cat "$t/com.cnn.www/contents/html@5"
run cat "$t/com.cnn.www/anchor/cnnsi.com"
run stat -c '%n: %s bytes, modified %y (the cell timestamp, 9 ms)' "$t/com.cnn.www/anchor/cnnsi.com"
run ls "$mnt/default/webtable@8/com.cnn.www/anchor"
echo "The store is mounted at $mnt. Try: echo hello > $t/com.example.www/people/editor"
echo "Unmount with: fusermount3 -u $mnt"
