package form

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// 1e3 typed into fetch's max_length (a number) went out as 1e3, which a
// server reading integers strictly refuses. Integer and number fields
// send the number exactly, in its plainest form; the raw view sends what
// is typed there.
func TestNumbersAreSentInTheirPlainestForm(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer"},"n":{"type":"number"}},"required":["i","n"]}`)
	for _, c := range []struct{ i, n, want string }{
		{"1e3", "1e3", `{"i":1000,"n":1000}`},
		{"1.0", "1.50", `{"i":1,"n":1.5}`},
		{"-0", "25E-4", `{"i":0,"n":0.0025}`},
		{"9007199254740993", "0.1", `{"i":9007199254740993,"n":0.1}`},
		{"1e22", "1.5e-30", `{"i":1e22,"n":1.5e-30}`},
	} {
		f := newForm(t, raw, 80, 24)
		editField(t, f, "/i", c.i)
		editField(t, f, "/n", c.n)
		if !f.Valid() {
			t.Errorf("%s, %s: %v", c.i, c.n, f.Issues())
		}
		cmd := press(f, "ctrl+s")
		if cmd == nil {
			t.Fatalf("%s, %s: not sent: %s", c.i, c.n, f.flash)
		}
		if got := string(cmd().(SubmitMsg).Value); got != c.want {
			t.Errorf("typed %s and %s: sent %s, want %s", c.i, c.n, got, c.want)
		}
	}

	// What is typed stays on screen; the footer says what goes out.
	f := newForm(t, raw, 80, 24)
	editField(t, f, "/n", "1e3")
	if s := plain(f.View()); !strings.Contains(s, "1e3") || !strings.Contains(s, "sent as 1000") {
		t.Errorf("the field does not say what is sent:\n%s", s)
	}
	editField(t, f, "/n", "1000")
	if s := plain(f.View()); strings.Contains(s, "sent as") {
		t.Errorf("a number sent as typed still says how it is sent:\n%s", s)
	}

	// 1.5e0 is not an integer: still an error, and sent anyway as typed.
	editField(t, f, "/i", "1.5e0")
	if got := rowIssue(t, f, "/i"); len(got) != 1 || got[0] != "is not an integer" {
		t.Errorf("1.5e0 in an integer field: %q", got)
	}

	// A huge exponent is cheap and keeps its exponent.
	start := time.Now()
	editField(t, f, "/i", "1e999999999")
	editField(t, f, "/n", "-2.50e400")
	if got := compact(t, f); got != `{"i":1e999999999,"n":-2.5e400}` {
		t.Errorf("huge exponents: %s", got)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a huge exponent took %s", d)
	}

	// The raw view sends exactly what is typed there.
	press(f, "ctrl+e")
	f.area.SetValue(`{"i": 1e3, "n": 1.50}`)
	f.rawChanged()
	if got := compact(t, f); got != `{"i":1e3,"n":1.50}` {
		t.Errorf("the raw view sends %s", got)
	}
}

// An enum holding a huge exponent is compared exactly, without
// multiplying it out.
func TestHugeNumbersInTheSchemaCompareExactly(t *testing.T) {
	start := time.Now()
	f := newForm(t, json.RawMessage(`{"type":"object","properties":{"e":{"enum":[1e999999999,2]},"i":{"type":"integer","default":1e999999998}}}`), 80, 24)
	if err := f.SetValue(json.RawMessage(`{"e":1e999999999}`)); err != nil {
		t.Fatal(err)
	}
	if got := compact(t, f); got != `{"e":1e999999999}` {
		t.Errorf("value %s", got)
	}
	// It is the enum's first value, not a JSON field holding something the
	// enum was thought not to have (math/big refuses exponents past about
	// a million).
	focusPtr(t, f, "/e")
	if n := f.focusedNode(); n.kind != kindEnum || n.sel != 0 {
		t.Errorf("/e is kind %d, choice %d; want the enum's first value", n.kind, n.sel)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
}
