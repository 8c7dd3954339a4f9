#!/bin/bash
# What the kernel says of a disk's medium, as zdash's two readers see it: the local sysfs reader
# (zdash.sources.procfs.describe_devices) and, for a remote host, `stat -L` plus `lsblk -P`
# (zdash.sources.remote.describe_remote_devices). Leaves of every shape zdash meets: whole NVMe
# and virtio disks given to zpool (it partitions them: -part1), a dm-delay device over one NVMe
# disk, a dm-linear slice of a virtio disk, a null_blk disk flagged rotational.
# Run from the worktree root:
#   ../shared/zfslab/zfslab run --mem 2G --nvme 2 --disks 2 --disk-size 2G tests/captures/devices/capture.sh
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-.venv/bin/python}
N0=/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_zfslab-nvme0
N1=/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_zfslab-nvme1
V0=/dev/disk/by-id/virtio-zfslab-disk0
V1=/dev/disk/by-id/virtio-zfslab-disk1
: > "$OUT/meta.txt"
cap() {  # cap FILE CMD: the bare output of CMD in FILE
  local f=$1; shift
  bash -c "$*" > "$OUT/$f" 2>&1
  printf 'capture %-28s <- %s  (exit %d)\n' "$f" "$*" $? >> "$OUT/meta.txt"
}
{
  echo "scenario: devices"
  echo "description: a pool 'media' of mirror-0 (whole NVMe disk nvme0 + whole virtio disk0, partitioned by zpool), mirror-1 (dm-delay over whole NVMe nvme1 + dm-linear 1 GiB slice of virtio disk1), mirror-2 (null_blk 'spin' with rotational set to 1 + null_blk 'flash'); every leaf's facts as zdash reads them locally and remotely"
  echo "zfs: $(zfs version | tr '\n' ' ')"
  echo "kernel: $(uname -r) (Debian, QEMU guest via zfslab)"
  echo "lsblk: $(lsblk --version)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >> "$OUT/meta.txt"
dmsetup create media_delay --table "0 $(blockdev --getsz $N1) delay $N1 0 5 $N1 0 5"
dmsetup create media_slice --table "0 2097152 linear $V1 0"
modprobe null_blk nr_devices=0
[ -d /sys/kernel/config/nullb ] || mount -t configfs none /sys/kernel/config
for nb in spin flash; do
  mkdir /sys/kernel/config/nullb/$nb
  for kv in size=512 blocksize=4096 memory_backed=1 power=1; do echo "${kv#*=}" > /sys/kernel/config/nullb/$nb/${kv%%=*}; done
done
udevadm settle
echo 1 > /sys/block/spin/queue/rotational
zpool create -f media mirror $N0 $V0 mirror /dev/mapper/media_delay /dev/mapper/media_slice mirror /dev/spin /dev/flash
LEAVES=$(zpool status -P media | awk '$1 ~ /^\/dev\// {print $1}' | tr '\n' ' ')
echo "leaves: $LEAVES" >> "$OUT/meta.txt"
cap zpool-status-P.txt "zpool status -P media"
cap describe-devices.txt "$PY -c 'import sys; from zdash.sources.procfs import describe_devices; print(describe_devices(sys.argv[1:]).stdout, end=\"\")' $LEAVES"
cap stat-L.txt "stat -L -c %t:%T:%F:%n -- $LEAVES"
cap lsblk-P.txt "lsblk -P -n -o KNAME,MAJ:MIN,PHY-SEC,ROTA,PKNAME,TRAN,MODEL"
cap sys-block-paths.txt "for d in /sys/class/block/*; do echo \"\$(basename \$d) \$(readlink -f \$d)\"; done"
zpool destroy media
dmsetup remove media_delay media_slice
for nb in spin flash; do echo 0 > /sys/kernel/config/nullb/$nb/power; rmdir /sys/kernel/config/nullb/$nb; done
