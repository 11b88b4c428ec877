#!/bin/sh
exec python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --mem-fraction-statc 0.85 --port 30000
