package engine

import (
	"errors"
	"testing"
)

func TestHumanReadableInt(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"32768", 32768, false},
		{"32k", 32000, false},
		{"1M", 1000000, false},
		{"2G", 2000000000, false},
		{"1T", 1000000000000, false},
		{"128Ki", 131072, false},
		{"1Mi", 1 << 20, false},
		{"1Gi", 1 << 30, false},
		{"1Ti", 1 << 40, false},
		{"25.6k", 25600, false},
		{"1.5M", 1500000, false},
		{"0.0001k", 0, false},    // Decimal product 0.1000, int() truncates
		{"1.9999k", 1999, false}, // truncation, not rounding
		{" 64k ", 64000, false},  // str.strip()
		{"-1", -1, false},        // plain int(): signs allowed
		{"+8", 8, false},
		{"1_000", 1000, false}, // int() accepts digit-group underscores
		{"007", 7, false},
		{"1.5Ki", 0, true}, // decimals only with SI suffixes
		{"32K", 0, true},   // suffixes are case-sensitive
		{"1m", 0, true},
		{"1ki", 0, true},
		{"1KiB", 0, true},
		{"-1k", 0, true}, // the suffix form has no sign
		{"1_000k", 0, true},
		{"1e3", 0, true},
		{"1.5", 0, true},
		{"", 0, true},
		{"k", 0, true},
		{"1__0", 0, true},
		{"_1", 0, true},
		{"1_", 0, true},
		{"0x10", 0, true},
		{"{{ .Values.ctx }}", 0, true},
	}
	for _, tt := range tests {
		got, err := HumanReadableInt(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("HumanReadableInt(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && got != tt.want {
			t.Errorf("HumanReadableInt(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestHumanReadableIntDecimalPrecision(t *testing.T) {
	// 29 nines: Python's Decimal context rounds the product 999.999…(29 digits)
	// to 28 significant digits, which makes it 1000 before int() truncates.
	got, err := HumanReadableInt("0.99999999999999999999999999999k")
	if err != nil || got != 1000 {
		t.Fatalf("got %d, %v; want 1000", got, err)
	}
	// 27 nines stay below 1000 and truncate to 999.
	got, err = HumanReadableInt("0.999999999999999999999999999k")
	if err != nil || got != 999 {
		t.Fatalf("got %d, %v; want 999", got, err)
	}
}

func TestHumanReadableIntOutOfRange(t *testing.T) {
	for _, in := range []string{"99999999999999999999", "9999999999Ti", "99999999999T"} {
		_, err := HumanReadableInt(in)
		if !errors.Is(err, ErrOutOfRange) {
			t.Errorf("HumanReadableInt(%q) error = %v, want ErrOutOfRange", in, err)
		}
	}
}
