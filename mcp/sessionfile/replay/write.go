package replay

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// Formats are the output formats Write knows.
var Formats = []string{"text", "json", "junit"}

// Write writes the result as text, json or junit.
func Write(w io.Writer, format string, r *Result) error {
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

// Summary is the one-line outcome.
func (r *Result) Summary() string {
	s := fmt.Sprintf("%s: %d match, %d differ", plural.S(len(r.Exchanges), "exchange"), r.Matched, r.Differed)
	if r.Unsent > 0 {
		s += fmt.Sprintf(", %d not sent (the connection was lost)", r.Unsent)
	}
	return s
}

// Server strings reach the terminal here: they are neutralised.
func writeText(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "replay of %s against %s\n%s\n", termsafe.String(r.Source), termsafe.String(r.Target), r.Summary())
	for i, ex := range r.Exchanges {
		if ex.Match() {
			continue
		}
		fmt.Fprintf(&b, "\n✗ #%d %s", i+1, termsafe.String(ex.Label))
		if ex.RecordedSeq != 0 {
			fmt.Fprintf(&b, " (recorded frame %d)", ex.RecordedSeq)
		}
		b.WriteString("\n")
		if ex.Error != "" {
			fmt.Fprintf(&b, "    no answer: %s\n", termsafe.String(ex.Error))
		}
		for _, d := range ex.Differences {
			fmt.Fprintf(&b, "    %s\n", termsafe.String(d.Path))
			switch {
			case d.Recorded == "":
				fmt.Fprintf(&b, "      + %s (new)\n", termsafe.String(d.Replayed))
			case d.Replayed == "":
				fmt.Fprintf(&b, "      - %s (gone)\n", termsafe.String(d.Recorded))
			default:
				fmt.Fprintf(&b, "      - %s\n      + %s\n", termsafe.String(d.Recorded), termsafe.String(d.Replayed))
			}
		}
	}
	if r.Interrupted != "" {
		fmt.Fprintf(&b, "\nthe connection was lost: %s\n", termsafe.String(r.Interrupted))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

func writeJUnit(w io.Writer, r *Result) error {
	s := junitSuite{Name: "mcpscope replay " + r.Source, Tests: len(r.Exchanges)}
	for i, ex := range r.Exchanges {
		c := junitCase{Name: fmt.Sprintf("#%d %s", i+1, ex.Label), Classname: "replay." + ex.Method}
		switch {
		case ex.Error != "":
			c.Error = &junitMessage{Message: "no answer", Body: ex.Error}
			s.Errors++
		case len(ex.Differences) > 0:
			var body strings.Builder
			for _, d := range ex.Differences {
				fmt.Fprintf(&body, "%s\n  recorded: %s\n  replayed: %s\n", d.Path, d.Recorded, d.Replayed)
			}
			c.Failure = &junitMessage{Message: plural.S(len(ex.Differences), "difference"), Body: body.String()}
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
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
