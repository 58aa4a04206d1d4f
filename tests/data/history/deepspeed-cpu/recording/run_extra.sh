#!/bin/bash
# run_extra.sh SHORT_COMMIT: pre-builds the op extensions in the extra mutants' worktree at the real commit
# (as record_deepspeed_history.py does before every run, so that no test is charged a JIT build and no
# build runs past DS_UNITTEST_TIMEOUT), then adds that commit's extra mutant with add_history_mutants.py.
set -euo pipefail
c="$1"
cd /work/eval
python3 merge_extras.py ds-history/history.json ds-extra/history.json ds-extra/history.new.json
mv ds-extra/history.new.json ds-extra/history.json
python3 -c "
import json,sys
s=json.load(open('extra-mutants.json'))
json.dump([x for x in s if x['commit']=='$c'], open('extra-$c.json','w'))"
full=$(git -C ds-history/repo rev-parse "$c^{commit}")
git -C ds-extra/mutant-worktree checkout -q --force "$full"
snippet=$(python3 -c "import sys; sys.path.insert(0,'/work/main/scripts'); import record_deepspeed_history as r; print(r.PREBUILD_SNIPPET)")
(cd ds-extra/mutant-worktree && LOCAL_SIZE=4 TORCH_EXTENSIONS_DIR=/work/eval/ds-extra/torch-extensions \
  PYTHONPATH=/work/shared/deepspeed-cpu/shims:/work/eval/ds-extra/mutant-worktree PYTHONDONTWRITEBYTECODE=1 \
  nice -n 5 /usr/bin/python3 -c "$snippet" CPUAdamBuilder,FusedAdamBuilder,ShareMemCommBuilder 2>&1 | grep prebuild:)
python3 /work/main/scripts/add_history_mutants.py --history /work/eval/ds-extra/history.json \
  --shims /work/shared/deepspeed-cpu/shims --extensions /work/eval/ds-extra/torch-extensions --python /usr/bin/python3 \
  "extra-$c.json"
