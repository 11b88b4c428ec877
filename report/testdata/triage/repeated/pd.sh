#!/bin/sh
# One node, two prefill and two decode servers behind the router.
MODEL=meta-llama/Llama-3.1-8B-Instruct
python3 -m sglang.launch_server --model-path $MODEL --tp 2 --disaggregation-mode prefill --port 30000 &
python3 -m sglang.launch_server --model-path $MODEL --tp 2 --disaggregation-mode prefill --port 30010 &
python3 -m sglang.launch_server --model-path $MODEL --tp 2 --disaggregation-mode decode --port 30001 &
python3 -m sglang.launch_server --model-path $MODEL --tp 2 --pp 1 --disaggregation-mode decode --port 30011 &
python3 -m sglang_router.launch_router --pd-disaggregation \
  --prefill http://127.0.0.1:30000 --prefill http://127.0.0.1:30010 \
  --decode http://127.0.0.1:30001 --decode http://127.0.0.1:30011
