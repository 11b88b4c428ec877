max_total_tokens = 65536
