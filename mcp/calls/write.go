package calls

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// Formats are the report formats Write knows.
var Formats = []string{"text", "json", "junit"}

// Write writes the report as text, json or junit.
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case "text", "":
		return writeText(w, r)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "junit":
		return writeJUnit(w, r)
	}
	return fmt.Errorf("unknown format %q: expected %s", format, strings.Join(Formats, ", "))
}

// Summary is the run's outcome in one line.
func (r *Report) Summary() string {
	s := fmt.Sprintf("%s: %d passed, %d failed", plural.S(len(r.Outcomes), "call"), r.Passed, r.Failed)
	if r.Updated > 0 {
		s += ", " + plural.S(r.Updated, "snapshot") + " updated"
	}
	if n := len(r.Skipped); n > 0 {
		s += fmt.Sprintf("; %s for other servers skipped", plural.S(n, "call"))
	}
	return s
}

// skippedLine says which calls were saved for other servers and so not
// run, by server.
func (r *Report) skippedLine() string {
	var servers []string
	by := map[string][]string{}
	for _, c := range r.Skipped {
		if _, ok := by[c.Server]; !ok {
			servers = append(servers, c.Server)
		}
		by[c.Server] = append(by[c.Server], fmt.Sprintf("%q", c.Name))
	}
	var parts []string
	for _, s := range servers {
		parts = append(parts, fmt.Sprintf("%s (server %q)", strings.Join(by[s], ", "), s))
	}
	this := ""
	if r.Server != "" {
		this = fmt.Sprintf(", not for %q", r.Server)
	}
	return fmt.Sprintf("skipped %s saved for other servers%s: %s", plural.S(len(r.Skipped), "call"), this, strings.Join(parts, "; "))
}

// shown cuts a value for a terminal line; the JSON report keeps it whole.
func shown(s string) string {
	s = termsafe.String(s)
	if r := []rune(s); len(r) > 300 {
		return string(r[:299]) + "…"
	}
	return s
}

// Server strings reach the terminal here: they are neutralised.
func writeText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpscope test: %s against %s\n", termsafe.String(r.File), termsafe.String(r.Target))
	if len(r.Skipped) > 0 {
		b.WriteString(shown(r.skippedLine()) + "\n")
	}
	for _, o := range r.Outcomes {
		mark := "✓"
		if !o.Pass {
			mark = "✗"
		}
		fmt.Fprintf(&b, "%s %s (%s, %s)", mark, termsafe.String(o.Name), termsafe.String(o.Method), Took(o.Ms))
		if o.Updated {
			b.WriteString(" snapshot updated")
		}
		b.WriteString("\n")
		if o.Stale != "" {
			fmt.Fprintf(&b, "    note: %s\n", shown(o.Stale))
		}
		if o.Error != "" {
			fmt.Fprintf(&b, "    no answer: %s\n", shown(o.Error))
		}
		for _, f := range o.Failures {
			b.WriteString("    " + f.Check)
			if f.Pointer != "" {
				b.WriteString(" " + shown(f.Pointer))
			}
			if f.Message != "" {
				b.WriteString(": " + shown(f.Message))
			}
			b.WriteString("\n")
			if f.Expected != "" {
				fmt.Fprintf(&b, "      expected %s\n", shown(f.Expected))
			}
			if f.Actual != "" {
				fmt.Fprintf(&b, "      actual   %s\n", shown(f.Actual))
			}
		}
	}
	if r.Interrupted != "" {
		fmt.Fprintf(&b, "the connection was lost: %s\n", termsafe.String(r.Interrupted))
	}
	b.WriteString(r.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// writeJUnit writes one testcase per call: a failure for an answer that
// did not meet its expectations, an error for one that never came.
func writeJUnit(w io.Writer, r *Report) error {
	s := junitSuite{Name: "mcpscope test " + r.File, Tests: len(r.Outcomes)}
	var total float64
	for _, o := range r.Outcomes {
		total += o.Ms
		c := junitCase{Name: o.Name, Classname: "mcpscope." + o.Method, Time: seconds(o.Ms), SystemOut: o.Stale}
		switch {
		case o.Error != "":
			c.Error = &junitMessage{Message: "no answer", Body: o.Error}
			s.Errors++
		case !o.Pass:
			var body strings.Builder
			for _, f := range o.Failures {
				body.WriteString(f.String() + "\n")
			}
			c.Failure = &junitMessage{Message: o.Reason(), Body: body.String()}
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	for _, sk := range r.Skipped {
		s.Cases = append(s.Cases, junitCase{Name: sk.Name, Classname: "mcpscope." + sk.Method, Time: seconds(0),
			Skipped: &junitMessage{Message: fmt.Sprintf("saved for the server %q", sk.Server)}})
		s.Tests++
		s.Skipped++
	}
	s.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// Took shows a duration in milliseconds as a person reads it: "0.42 ms",
// "12 ms".
func Took(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.2f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}
