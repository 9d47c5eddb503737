package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sameOrdered reports how two decodings differ (values, and each object's
// key order), or "" when they do not.
func sameOrdered(a any, ao keyOrder, b any, bo keyOrder, at string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %T of %d against %T", at, a, len(x), b)
		}
		if ka, kb := ao[mapID(x)], bo[mapID(y)]; !reflect.DeepEqual(ka, kb) {
			return fmt.Sprintf("%s: keys %q against %q", at, ka, kb)
		}
		for k, v := range x {
			if d := sameOrdered(v, ao, y[k], bo, at+"/"+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return fmt.Sprintf("%s: %#v against %#v", at, a, b)
		}
		for i := range x {
			if d := sameOrdered(x[i], ao, y[i], bo, fmt.Sprintf("%s/%d", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %#v against %#v", at, a, b)
	}
	return ""
}

// checkDecodeOrdered compares decodeOrdered (by views) with the
// json.Decoder reference on raw: the same values, key orders and errors.
func checkDecodeOrdered(t *testing.T, raw []byte) {
	t.Helper()
	got, gotOrder, gotErr := decodeOrdered(raw)
	want, wantOrder, wantErr := decodeOrderedTokens(raw)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%q: error %v, the reference %v", raw, gotErr, wantErr)
	}
	if d := sameOrdered(got, gotOrder, want, wantOrder, ""); d != "" {
		t.Fatalf("%q: %s", raw, d)
	}
}

var decodeOrderedSeeds = []string{
	`{"b":1,"a":{"d":[1,2,{"z":null,"y":true}],"c":false},"e":"x"}`,
	` {"a":1,"a":2,"b":3} `, `{"\u00e9t\u00e9":1,"k\"q":2,"\ud83d\ude00":3,"bad \ud800":4}`,
	`[]`, `{}`, `[[],{},""]`, `-0.5e+10`, `"\u2028\t\\"`, `true`, `null`, "\"\xff\xfe\"",
	`{"a":1,}`, `{"a" 1}`, `[1,2`, `{"a":1} {"b":2}`, ``, ` `, `nul`,
}

func TestDecodeOrderedAgreesWithTheDecoder(t *testing.T) {
	for _, s := range decodeOrderedSeeds {
		checkDecodeOrdered(t, []byte(s))
	}
	files, _ := filepath.Glob("schematest/testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no schemas under schematest/testdata")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeOrdered(t, raw)
	}
}

func FuzzDecodeOrdered(f *testing.F) {
	for _, s := range decodeOrderedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkDecodeOrdered(t, raw) // invalid input too: both must refuse it
	})
}

// BenchmarkDecodeOrdered decodes the demo server's tools/list (every
// tool's schemas) keeping key order, by views and by the reference.
func BenchmarkDecodeOrdered(b *testing.B) {
	raw, err := os.ReadFile("schematest/testdata/demo-tools.json")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("views", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _, _ = decodeOrdered(raw)
		}
	})
	b.Run("tokens", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _, _ = decodeOrderedTokens(raw)
		}
	})
}

// deepSchema is a schema nested n deep.
func deepSchema(n int) []byte {
	return []byte(strings.Repeat(`{"items":`, n) + `{}` + strings.Repeat(`}`, n))
}

// BenchmarkDecodeDeep decodes schemas nested 1,200 and 9,600 deep: linear
// decoding takes 8 times as long for the second, as reading each nested
// value's end first and then decoding it again took 64 times.
func BenchmarkDecodeDeep(b *testing.B) {
	for _, n := range []int{1200, 9600} {
		raw := deepSchema(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = decodeOrdered(raw)
			}
		})
	}
}

// A schema nested 10,000 deep (a 20 kB schema, as deep as JSON may go
// here) decodes in under half a second: linear decoding takes a few
// hundredths of that, and reading each nested value twice took three
// times as long, which a server that chooses its schemas could use.
// BenchmarkDecodeDeep measures the growth.
func TestDeepSchemaDecodesQuickly(t *testing.T) {
	start := time.Now()
	v, _, err := decodeOrdered(deepSchema(10000))
	if took := time.Since(start); err != nil || took > 500*time.Millisecond {
		t.Fatalf("10,000 levels took %v (err %v)", took, err)
	}
	// The deepest value is decoded, not lost.
	for range 10000 {
		v = v.(map[string]any)["items"]
	}
	if m, ok := v.(map[string]any); !ok || len(m) != 0 {
		t.Errorf("innermost value = %#v, want {}", v)
	}
}
