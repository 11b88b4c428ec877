#!/bin/sh
# Every numeric flag below comes from somewhere kvlint cannot see.
python3 -m sglang.launch_server --model-path "$1" \
  --tp-size "$TP" --context-length "${CONTEXT}" \
  --max-total-tokens "$(cat /etc/pool)" --mem-fraction-static "$MEM"
