#!/bin/sh
# Latin-1 bytes, not UTF-8: café
python3 -m sglang.launch_server --model-path /models/café --context-length 8192
