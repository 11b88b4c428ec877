model            = "Qwen/Qwen2.5-7B-Instruct"
context_length   = 131072
max_total_tokens = 65536
