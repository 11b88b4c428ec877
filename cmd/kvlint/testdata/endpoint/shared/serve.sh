#!/bin/sh
# One SGLang server for every tenant of a staging environment.
exec python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
  --context-length 8192 --mem-fraction-static 0.85 --host 0.0.0.0 --port 30000
