#!/bin/bash
# Restarts the recorder (A) with --phase commits right after it has saved its next commit, so that its
# mutant phase can later run on a history that holds the mutants recorded by the parallel instance (B).
cd /work/main
A=$(cat /work/eval/record.pid)
n=$(grep -c "commit [0-9]*/30" /work/eval/record.log)
while [ "$(grep -c "commit [0-9]*/30" /work/eval/record.log)" -eq "$n" ]; do sleep 2; done
sleep 1
for c in $(pgrep -P "$A"); do kill -TERM -- "-$c" 2>/dev/null; done
kill -TERM "$A"
sleep 3
for c in $(pgrep -P "$A" 2>/dev/null); do kill -KILL -- "-$c" 2>/dev/null; done
echo "[$(date +%H:%M:%S)] switch: restarting with --phase commits" >> /work/eval/record.log
nohup python3 scripts/record_deepspeed_history.py --source /work/eval/DeepSpeed --out /work/eval/ds-history --last v0.14.2 --count 30 --shims /work/shared/deepspeed-cpu/shims --fastci /work/eval/bin/fastci --python /usr/bin/python3 --mutants-per-commit 1 --seed 1 --phase commits >> /work/eval/record.log 2>&1 &
echo $! > /work/eval/record.pid
