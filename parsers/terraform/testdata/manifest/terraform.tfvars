pool_tokens = 65536
