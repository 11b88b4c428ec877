package capacity

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/internal/limits"
)

// The safetensors layout (huggingface/safetensors safetensors/src/tensor.rs,
// SafeTensors::read_metadata): 8 bytes of little-endian u64 N, then N bytes
// of JSON mapping each tensor name to {dtype, shape, data_offsets} (plus an
// optional "__metadata__" of strings), then the tensor bytes; data_offsets
// are relative to the end of the header. The library refuses a header over
// MAX_HEADER_SIZE = 100_000_000 bytes. kvlint reads no more than
// maxSafetensorsHeader, which is far above any real checkpoint's header
// (about 100 bytes per tensor) and within what one input file may cost.
const (
	maxSafetensorsHeader = limits.MaxFileSize
	// maxSafetensorsFiles bounds the shards read from one directory.
	maxSafetensorsFiles = 512
)

// safetensorsDtypeBits are the element sizes of the dtypes of
// safetensors/src/tensor.rs Dtype::bitsize; an unknown dtype is checked
// only through its offsets.
var safetensorsDtypeBits = map[string]int64{
	"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16,
	"I32": 32, "U32": 32, "F32": 32, "I64": 64, "U64": 64, "F64": 64,
	"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}

// readSafetensorsHeaders sums the tensor bytes the headers of the
// *.safetensors files in dir declare, when the directory holds no index
// (a single-file checkpoint, or shards without model.safetensors.index.json).
// Only each file's header is read, never its tensors.
func readSafetensorsHeaders(cfs *confined.FS, dir string, m *Model) error {
	entries, err := cfs.ReadDir(dir)
	if err != nil {
		return nil // no listing, no weights: they stay unknown
	}
	var files []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".safetensors") && !e.IsDir() {
			files = append(files, e.Name())
		}
	}
	if len(files) == 0 {
		return nil
	}
	if len(files) > maxSafetensorsFiles {
		return &diag.Diagnostic{Span: deploy.Span{File: dir}, Message: fmt.Sprintf("%d safetensors files: more than the %d kvlint reads, so the weights are not summed", len(files), maxSafetensorsFiles)}
	}
	sort.Strings(files)
	var total int64
	for _, name := range files {
		n, err := safetensorsBytes(cfs, filepath.Join(dir, name))
		if err != nil {
			return err
		}
		total += n
	}
	if total > 0 {
		m.WeightsBytes = total
		m.ParamsSource = fmt.Sprintf("tensor bytes summed from the safetensors headers of %s (%d file(s))", dir, len(files))
	}
	return nil
}

// safetensorsBytes reads one file's header and returns the bytes its
// tensors occupy, checking each tensor's offsets against its shape and
// dtype as the library's Metadata::validate does.
func safetensorsBytes(cfs *confined.FS, file string) (int64, error) {
	bad := func(format string, args ...any) error {
		return &diag.Diagnostic{Span: deploy.Span{File: file, Line: 1, Col: 1}, Message: "safetensors header: " + fmt.Sprintf(format, args...)}
	}
	head, err := cfs.ReadHead(file, 8)
	if err != nil {
		return 0, &diag.Diagnostic{Span: deploy.Span{File: file}, Message: "cannot read the safetensors header: " + limits.Describe(err)}
	}
	if len(head) < 8 {
		return 0, bad("the file is shorter than the 8-byte header length")
	}
	n := binary.LittleEndian.Uint64(head)
	if n > uint64(maxSafetensorsHeader)-8 {
		return 0, bad("the header length %d is over the %d bytes kvlint reads", n, maxSafetensorsHeader-8)
	}
	data, err := cfs.ReadHead(file, int(n)+8)
	if err != nil {
		return 0, &diag.Diagnostic{Span: deploy.Span{File: file}, Message: "cannot read the safetensors header: " + limits.Describe(err)}
	}
	if len(data) < int(n)+8 {
		return 0, bad("the header length %d runs past the end of the file", n)
	}
	var header map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data[8:]))
	if err := dec.Decode(&header); err != nil {
		return 0, bad("not a JSON object: %v", err)
	}
	names := make([]string, 0, len(header))
	for name := range header {
		if name != "__metadata__" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var total int64
	for _, name := range names {
		var t struct {
			Dtype   string   `json:"dtype"`
			Shape   []int64  `json:"shape"`
			Offsets []uint64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(header[name], &t); err != nil {
			return 0, bad("tensor %q: %v", name, err)
		}
		if len(t.Offsets) != 2 || t.Offsets[1] < t.Offsets[0] || t.Offsets[1] > 1<<50 {
			return 0, bad("tensor %q: data_offsets must be [begin, end] with begin <= end", name)
		}
		size := int64(t.Offsets[1] - t.Offsets[0])
		if bits, ok := safetensorsDtypeBits[t.Dtype]; ok {
			elems := int64(1)
			for _, d := range t.Shape {
				if d < 0 || (d > 0 && elems > math.MaxInt64/64/d) {
					return 0, bad("tensor %q: shape %v overflows", name, t.Shape)
				}
				elems *= d
			}
			if want := (elems*bits + 7) / 8; want != size {
				return 0, bad("tensor %q: %s%v takes %d bytes, its data_offsets span %d", name, t.Dtype, t.Shape, want, size)
			}
		}
		// Offsets are capped at 2^50 and a valid file's tensors do not
		// overlap, so their sum never passes it either; a header whose sum
		// does is lying, and capping it keeps the sum over 512 files
		// inside int64.
		if total += size; total > 1<<50 {
			return 0, bad("tensors sum to more than 2^50 bytes: their data_offsets overlap")
		}
	}
	return total, nil
}
