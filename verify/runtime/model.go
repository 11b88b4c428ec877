package runtime

// The toy model. Tokens are bytes. Each token's KV cell holds the token and a hash chained
// over the previous cell, the token and its position, the way a real KV entry depends on
// everything before it. The output is derived only from the cells the model reads through
// the request's page table: the model quotes every span it finds between '{' and '}' in
// the prompt part of its context, braces included, over and over. So a request whose page
// table reaches another tenant's cells — their prompt, or an answer that quoted their
// secret — says that tenant's secret, as a real model attending to foreign KV would
// produce foreign content (leakage.md §5.1, "derive its output from the KV it reads").

const (
	markerOpen  = '{'
	markerClose = '}'
	maxRecited  = 64
	fillerLen   = 8
)

// cell is one token's KV entry.
type cell struct {
	hash   uint64
	writer int32 // tenant index + 1 of whoever wrote it; 0: never written
	tok    byte
}

// mix64 is splitmix64's finalizer: a cheap, well-spread 64-bit hash.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// cellHash is the chain: hash(previous cell, token, position).
func cellHash(prev uint64, tok byte, pos int) uint64 {
	return mix64(prev ^ mix64(uint64(tok)<<32^uint64(pos)))
}

// recite builds what the model says for a context whose prompt part is n tokens long;
// at(i) reads the cell at position i through the page table.
func recite(n int, at func(int) cell) []byte { return reciteAppend(nil, n, at) }

// reciteAppend is recite writing into dst[:0], so a caller that recites again and again
// can reuse one buffer.
func reciteAppend(dst []byte, n int, at func(int) cell) []byte {
	out := dst[:0]
	for i := 0; i < n; i++ {
		if at(i).tok != markerOpen {
			continue
		}
		out = append(out, markerOpen)
		j := i + 1
		for ; j < n && j-i-1 < maxRecited; j++ {
			t := at(j).tok
			if t == markerClose || t == markerOpen {
				break
			}
			out = append(out, t)
		}
		out = append(out, markerClose, ' ')
		i = j - 1
	}
	if len(out) > 0 {
		return out
	}
	// No secret in sight: babble, but babble that depends on the whole chain.
	var h uint64
	if n > 0 {
		h = at(n - 1).hash
	}
	for k := 0; k < fillerLen; k++ {
		h = mix64(h)
		out = append(out, 'a'+byte(h%26))
	}
	return out
}

// tokenAt is the k-th generated token of a recitation.
func tokenAt(recitation []byte, k int) byte {
	if len(recitation) == 0 {
		return ' '
	}
	return recitation[k%len(recitation)]
}

// referenceOutput is what the model says for prompt when it reads exactly its own KV: the
// ground truth an isolated, correct run would deliver.
func referenceOutput(prompt []byte, n int) []byte {
	// recite reads every cell's token but only the last cell's hash, so the chain is
	// folded into that one value rather than materialised cell by cell.
	var last uint64
	for i, t := range prompt {
		last = cellHash(last, t, i)
	}
	r := recite(len(prompt), func(i int) cell {
		c := cell{tok: prompt[i]}
		if i == len(prompt)-1 {
			c.hash = last
		}
		return c
	})
	out := make([]byte, n)
	for k := range out {
		out[k] = tokenAt(r, k)
	}
	return out
}
