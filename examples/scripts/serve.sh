#!/usr/bin/env bash
# Bring up a single-node Qwen3 server for the staging cluster.
set -euo pipefail

MODEL=${MODEL:-Qwen/Qwen3-32B}
PORT=30000
CONTEXT=32k

exec python3 -m sglang.launch_server \
  --model-path "$MODEL" \
  --tp 2 \
  --context-length "$CONTEXT" \
  --mem-fraction-static 0.9 \
  --max-total-tokens 16384 \
  --cuda-graph-max-bs 64 \
  --enable-metrics \
  --host 0.0.0.0 --port "$PORT"
