package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/spf13/pflag"
)

// policyFlags say how to answer what a server asks of the client: roots
// (--root), elicitation and sampling. Headless commands have nobody to ask,
// so these are their only answers; the TUI uses --root as its starting roots
// and the other two, when given, instead of asking the user.
type policyFlags struct {
	roots       []string
	elicitation string
	sampling    string
}

func (f *policyFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.roots, "root", nil, "a root to offer the server for roots/list: a directory (made an absolute file:// URI) or a URI (repeatable)")
	fs.StringVar(&f.elicitation, "elicitation", "", "answer elicitation/create without asking: accept-defaults (accept with the schema's defaults) or decline")
	fs.StringVar(&f.sampling, "sampling", "", "answer sampling/createMessage without asking: reply=TEXT or decline")
}

// answers turns the flags into a policy handler; next answers what no flag
// covers (nil: an error naming the flag).
func (f *policyFlags) answers(next mcp.Handler) (*policy.Answers, error) {
	a := &policy.Answers{Next: next}
	for _, r := range f.roots {
		root, err := policy.RootFromPath(r)
		if err != nil {
			return nil, fmt.Errorf("--root: %w", err)
		}
		a.Roots = append(a.Roots, root)
		a.RootsSet = true
	}
	switch f.elicitation {
	case "":
	case string(policy.ElicitAcceptDefaults), string(policy.ElicitDecline):
		a.Elicitation = policy.Elicitation(f.elicitation)
	default:
		return nil, fmt.Errorf("--elicitation %q: expected accept-defaults or decline", f.elicitation)
	}
	switch {
	case f.sampling == "":
	case f.sampling == "decline":
		a.Sampling = policy.Sampling{Set: true, Decline: true}
	case strings.HasPrefix(f.sampling, "reply="):
		a.Sampling = policy.Sampling{Set: true, Reply: strings.TrimPrefix(f.sampling, "reply=")}
	default:
		return nil, fmt.Errorf("--sampling %q: expected reply=TEXT or decline", f.sampling)
	}
	return a, nil
}

// apply installs the policy handler in client options (headless use).
// What no flag covers gets the neutral answer (no roots, decline), said
// once per method on stderr, since mcpscope declares roots, sampling and
// elicitation.
func (f *policyFlags) apply(opts *mcp.Options, stderr io.Writer) error {
	a, err := f.answers(neutralAnswers(stderr))
	if err != nil {
		return withCode(exitUsage, err)
	}
	opts.Handler = a
	return nil
}

// neutralAnswers is the headless fallback: no roots, decline, told on
// stderr.
func neutralAnswers(stderr io.Writer) *policy.Neutral {
	return &policy.Neutral{Told: func(method, answer string) {
		_, _ = fmt.Fprintf(stderr, "mcpscope: the server sent %s: %s\n", method, answer)
	}}
}

// headlessCallOptions ask for progress on the one request a headless call
// sends, so a --record file shows the server's notifications/progress, and
// let progress keep a long operation alive past --timeout (the spec's "MAY
// reset the timer on progress").
func headlessCallOptions() []mcp.CallOption {
	return []mcp.CallOption{mcp.WithProgress(func(mcp.Progress) {}), mcp.WithTimeoutResetOnProgress()}
}
