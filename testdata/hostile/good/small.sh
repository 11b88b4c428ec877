#!/bin/sh
# The good neighbour: a known KV101 finding that a bad file beside it must not hide.
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
  --context-length 8192 --max-total-tokens 4096
