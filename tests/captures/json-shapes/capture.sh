#!/bin/sh
# zpool status -j in its other shapes, from one moment of one pool (OpenZFS in the zfslab VM):
# nested (what zdash runs), --json-flat-vdevs with and without --json-int, -P, -L, and the text.
# Pool js: two mirrors of loop devices, a special mirror, a log, a cache and a hot spare that stands in
# for an offlined side (spare-0). Run from the repository root:
#   ../shared/zfslab/zfslab run --mem 4G 'sh tests/captures/json-shapes/capture.sh'
set -eu
OUT=tests/captures/json-shapes
D=/tmp/zl/js
mkdir -p "$D"
# loop devices: a file cannot be put in as a hot spare ("reserved as a hot spare")
for f in a b c d sp1 sp2 log cache spare; do
    truncate -s 256M "$D/$f"
    eval "L_$f=$(losetup -f --show "$D/$f")"
done
zpool create -f -o ashift=12 js mirror "$L_a" "$L_b" mirror "$L_c" "$L_d" \
    special mirror "$L_sp1" "$L_sp2" log "$L_log" cache "$L_cache" spare "$L_spare"
dd if=/dev/urandom of=/js/data bs=1M count=60 2>/dev/null
zpool sync js
zpool offline js "$L_a"
zpool replace js "$L_a" "$L_spare"
zpool wait -t resilver js
cap() { # file, command...
    name=$1; shift
    "$@" > "$OUT/$name" 2>&1 && rc=0 || rc=$?
    printf 'capture %-40s <- %s  (exit %s)\n' "$name" "$*" "$rc" >> "$OUT/meta.txt"
}
{
    echo "scenario: json-shapes"
    echo "description: mirror-0 (a offlined, hot spare in use as spare-0), mirror-1, special mirror, log, cache; 60 MiB written; every status shape of the same moment"
    echo "zfs: $(zfs version | tr '\n' ' ')"
    echo "kernel: $(uname -r) (Debian, QEMU TCG guest via zfslab)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "script: tests/captures/json-shapes/capture.sh"
} > "$OUT/meta.txt"
cap zpool-status.txt zpool status js
cap zpool-status-j.txt zpool status -j js
cap zpool-status-j-json-int.txt zpool status -j --json-int js
cap zpool-status-j-flat-json-int.txt zpool status -j --json-flat-vdevs --json-int js
cap zpool-status-j-flat.txt zpool status -j --json-flat-vdevs js
cap zpool-status-jP-flat.txt zpool status -jP --json-flat-vdevs js
cap zpool-status-jL.txt zpool status -jL js
cap zpool-list-vj-json-int.txt zpool list -vj --json-int js
cap zpool-list-v.txt zpool list -v js
cap zpool-list-v-H-p.txt zpool list -v -H -p js
cap zpool-iostat-v.txt zpool iostat -v js
cap zpool-iostat-v-l-H-p-1-2.txt zpool iostat -v -l -H -p js 1 2
cap zpool-get-j-all-vdevs-ashift.txt zpool get -j ashift js all-vdevs
zpool destroy js
for l in "$L_a" "$L_b" "$L_c" "$L_d" "$L_sp1" "$L_sp2" "$L_log" "$L_cache" "$L_spare"; do losetup -d "$l"; done
