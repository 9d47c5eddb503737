package schema

import (
	"strings"
	"testing"
	"time"
)

func TestCanonicalNumber(t *testing.T) {
	for _, c := range []struct {
		in, want string
		integer  bool
	}{
		{"1e3", "1000", true},
		{"1E3", "1000", true},
		{"1e+3", "1000", true},
		{"-1e3", "-1000", true},
		{"1.50", "1.5", false},
		{"1.0", "1", true},
		{"10.00e-1", "1", true},
		{"-0", "0", true},
		{"0.0e5", "0", true},
		{"25E-4", "0.0025", false},
		{"1.5e0", "1.5", false},
		{"1.5e1", "15", true},
		{"0.1", "0.1", false},
		{"123.456", "123.456", false},
		// Typed in full, a long number stays whole, however many zeros.
		{"1000000000000000000000000000000", "1000000000000000000000000000000", true},
		{"0.000000000000000000000000001", "0.000000000000000000000000001", false},
		{"9007199254740993", "9007199254740993", true},
		// An exponent is written out up to 21 zeros, kept beyond.
		{"1e21", "1000000000000000000000", true},
		{"1e22", "1e22", true},
		{"12e30", "1.2e31", true},
		{"1e-21", "0.000000000000000000001", false},
		{"1.5e-30", "1.5e-30", false},
		{"-2.50e400", "-2.5e400", true},
		// Beyond the exponents the validator tells apart: as given.
		{"1e9999999999999999", "1e9999999999999999", true},
		{"1e-9999999999999999", "1e-9999999999999999", false},
	} {
		got, integer, ok := CanonicalNumber(c.in)
		if !ok || got != c.want || integer != c.integer {
			t.Errorf("CanonicalNumber(%q) = %q, %v, %v; want %q, %v", c.in, got, integer, ok, c.want, c.integer)
		}
		// The text is the same number as the validator sees it.
		if a, b := decimalOf(t, c.in), decimalOf(t, got); a.key() != b.key() {
			t.Errorf("%q -> %q changed the value (%s, %s)", c.in, got, a.key(), b.key())
		}
	}
	for _, bad := range []string{"", "-", "+1", "01", "1.", ".5", "1e", "1e+", " 1", "1 ", "0x10", "1_000", "NaN", "Infinity", "--1", "1.2.3", "1e3.5", `"1"`} {
		if got, _, ok := CanonicalNumber(bad); ok {
			t.Errorf("CanonicalNumber(%q) = %q, want not a number", bad, got)
		}
	}
}

// A hostile exponent costs what its text does.
func TestCanonicalNumberHugeExponentIsCheap(t *testing.T) {
	start := time.Now()
	for _, s := range []string{"1e999999999", "1e-999999999", "7" + strings.Repeat("0", 1000) + "e999999999", "1.5e99999999999999999999"} {
		got, _, ok := CanonicalNumber(s)
		if !ok || len(got) > len(s)+maxInventedZeros+3 {
			t.Errorf("CanonicalNumber(%.20q…) = %d bytes", s, len(got))
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s", d)
	}
}

func decimalOf(t *testing.T, s string) decimal {
	t.Helper()
	d, ok := parseDecimal(s)
	if !ok {
		t.Fatalf("parseDecimal(%q)", s)
	}
	return d
}
