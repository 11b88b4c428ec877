#!/usr/bin/env bash
# Single-node PD disaggregation: one prefill, one decode, one router.
set -euo pipefail

MODEL=${MODEL_PATH:-meta-llama/Llama-3.1-8B-Instruct}
MODEL_DIR=/models/llama-3.1-8b
IB_DEVICE=mlx5_roce0
COMMON="--trust-remote-code --mem-fraction-static 0.85"

nohup python3 -m sglang.launch_server \
  --model-path "$MODEL_DIR" \
  --disaggregation-mode prefill \
  --port 30000 \
  --disaggregation-ib-device "$IB_DEVICE" \
  $COMMON > prefill.log 2>&1 &

CUDA_VISIBLE_DEVICES=1 numactl --cpunodebind=1 --membind=1 \
  python3 -m sglang.launch_server --model-path "$MODEL" \
  --disaggregation-mode decode --port 30001 --base-gpu-id 1 \
  --context-length 32k "$@" &

exec python3 -m sglang_router.launch_router --pd-disaggregation \
  --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 \
  --host 0.0.0.0 --port 8000
