package format

import (
	"strings"
	"testing"
)

// benchValues are typical valid values of each format, as servers send
// them; the hot ones (date-time, date, email, uri, uuid) must not
// allocate.
var benchValues = []struct{ format, value string }{
	{"date-time", "2024-06-01T12:34:56.789+05:30"},
	{"date", "2024-06-01"},
	{"time", "12:34:56Z"},
	{"duration", "P1Y2M3DT4H5M6S"},
	{"email", "joe.bloggs@example.com"},
	{"idn-email", "δοκιμή@bücher.example"},
	{"hostname", "api.eu-west-1.example.com"},
	{"hostname", "xn--bcher-kva.example"},
	{"idn-hostname", "bücher.example"},
	{"idn-hostname", "مثال.إختبار"},
	{"ipv4", "192.168.100.200"},
	{"ipv6", "2001:db8:85a3::8a2e:370:7334"},
	{"uri", "https://api.example.com/v1/items/42?expand=owner&limit=10#top"},
	{"iri", "https://例子.测试/路径?q=值"},
	{"uri-reference", "../items/42?expand=owner"},
	{"uri-template", "repo://{owner}/{repo}/issues{?state,labels*}"},
	{"json-pointer", "/components/schemas/Item/properties/a~1b"},
	{"relative-json-pointer", "1/items/0"},
	{"uuid", "123e4567-e89b-12d3-a456-426614174000"},
	{"semver", "1.2.3-rc.1+build.5"},
	{"regex", `^[A-Z]{3}-\d{4}$`},
}

func BenchmarkCheck(b *testing.B) {
	for _, v := range benchValues {
		b.Run(v.format+"/"+v.value, func(b *testing.B) {
			if ok, _ := Check(v.format, v.value); !ok {
				b.Fatalf("%q is not a valid %s", v.value, v.format)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(v.value)))
			for b.Loop() {
				Check(v.format, v.value)
			}
		})
	}
}

func BenchmarkRegex(b *testing.B) {
	for _, p := range []string{`^[A-Z]{3}-\d{4}$`, `^\s*\S+@\S+\.\S+$`, `^\p{Letter}+\u00e9.*$`} {
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Regex(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHotFormatsAllocateNothing keeps the benchmark's promise in the
// ordinary test run.
func TestHotFormatsAllocateNothing(t *testing.T) {
	for _, v := range benchValues {
		switch v.format {
		case "date-time", "date", "time", "email", "uri", "uri-reference", "uuid", "hostname", "ipv4", "ipv6", "json-pointer", "uri-template":
		default:
			continue
		}
		if strings.Contains(v.value, "xn--") {
			continue // an A-label is decoded by golang.org/x/net/idna, which allocates
		}
		if n := testing.AllocsPerRun(100, func() { Check(v.format, v.value) }); n != 0 {
			t.Errorf("Check(%q, %q) allocates %v times", v.format, v.value, n)
		}
	}
}
