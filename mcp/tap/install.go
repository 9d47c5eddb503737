package tap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/config"
)

// Edited is what Install or Uninstall did to a config file's text.
type Edited struct {
	// Data is the new text (the old one when nothing changed).
	Data []byte
	// Changed labels the servers changed, in file order.
	Changed []string
	// Skipped says, for each server left alone because install cannot
	// tap it, why ("remote, a URL server (...)").
	Skipped []string
	// Unknown lists, of the servers left alone, those written in a shape
	// install does not know (not URL servers), with why.
	Unknown []string
}

// Install rewrites the named stdio servers of a client's config (all of
// them when names is empty) to run through `self tap`: a server's
// `CMD ARGS…` becomes `self tap --name NAME -- CMD ARGS…`. Only the
// command's token and the front of the args change; comments, formatting
// and everything else stay, in JSON, TOML and YAML alike. The original
// command's token moves into the args byte for byte, so Uninstall gives
// back the file exactly. A server already tapped (by install or by hand)
// is left alone: installing twice changes nothing the second time.
func Install(syntax config.Syntax, data []byte, self string, names []string) (*Edited, error) {
	return edit(syntax, data, names, func(d *config.Doc, e *config.Entry) ([]config.Edit, []string, string, bool, error) {
		if _, _, ok := Tapped(e.Command, e.Args); ok {
			return nil, nil, "", false, nil
		}
		prepend := []config.Token{{Value: "tap"}, {Value: "--name"}, {Value: e.Name}, {Value: "--"}, d.CommandToken(e)}
		edits, err := d.Rewrite(e, config.Token{Value: self}, 0, prepend, false)
		args := append([]string{"tap", "--name", e.Name, "--", e.Command}, e.Args...)
		return edits, args, self, true, err
	})
}

// Uninstall undoes a tap for the named servers (all tapped ones when
// names is empty): an entry whose parsed value is `tap [FLAGS] -- CMD
// ARGS…`, however it is formatted and whoever wrote it (tap install, the
// client rewriting its file, a person), gets back `CMD ARGS…`. Only those
// entries change; on a file nothing else touched since Install, the
// result is the original byte for byte. backup, the file as the last
// Install found it (nil when there is none), settles the one thing the
// text cannot: whether a server left without args had an empty list or
// none before.
func Uninstall(syntax config.Syntax, data []byte, names []string, backup []byte) (*Edited, error) {
	hadList := map[string]bool{}
	if prev, err := config.Read(syntax, backup); backup != nil && err == nil {
		for i := range prev.Entries {
			p := &prev.Entries[i]
			if _, _, tapped := Tapped(p.Command, p.Args); !tapped {
				hadList[p.Key()] = p.HasArgs()
			}
		}
	}
	return edit(syntax, data, names, func(d *config.Doc, e *config.Entry) ([]config.Edit, []string, string, bool, error) {
		k, _, ok := Tapped(e.Command, e.Args)
		if !ok {
			return nil, nil, "", false, nil
		}
		edits, err := d.Rewrite(e, d.ArgToken(e, k+1), k+2, nil, hadList[e.Key()])
		return edits, e.Args[k+2:], e.Args[k+1], true, err
	})
}

// change works out one entry's edits and what it will then hold; ok is
// false when the entry is left alone.
type change func(d *config.Doc, e *config.Entry) (edits []config.Edit, args []string, command string, ok bool, err error)

func edit(syntax config.Syntax, data []byte, names []string, ch change) (*Edited, error) {
	d, err := config.Read(syntax, data)
	if err != nil {
		return nil, err
	}
	if err := checkNames(d, names); err != nil {
		return nil, err
	}
	res := &Edited{Data: data}
	var edits []config.Edit
	// What each entry must hold after the edit, as a digest: the parsed
	// args of a big file weigh about what it does, and are let go before
	// the edit is made and read back.
	type value struct {
		key string
		sum uint64
	}
	seed := maphash.MakeSeed()
	want := make([]value, len(d.Entries))
	others := len(d.Others)
	for i := range d.Entries {
		e := &d.Entries[i]
		want[i] = value{e.Key(), digest(seed, e.Command, e.Args)}
		if !wanted(e.Name, names) {
			continue
		}
		ed, args, command, ok, err := ch(d, e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Label(), err)
		}
		if !ok {
			continue
		}
		want[i].sum = digest(seed, command, args)
		edits = append(edits, ed...)
		res.Changed = append(res.Changed, e.Label())
	}
	if len(names) == 0 {
		for _, o := range d.Others {
			label := o.Name
			if o.Scope != "" {
				label += " (" + o.Scope + ")"
			}
			why := o.Why
			if o.URL {
				why += " (tap it with mcpscope tap --listen)"
			} else {
				res.Unknown = append(res.Unknown, label+" ("+o.Why+")")
			}
			res.Skipped = append(res.Skipped, label+", "+why)
		}
	}
	if len(res.Changed) == 0 {
		return res, nil
	}
	d = nil
	if res.Data, err = config.Apply(data, edits); err != nil {
		return nil, err
	}
	// Read the result back: every server must hold what it should, and
	// nothing else may have moved. A shape the edits get wrong is refused
	// here rather than written.
	after, err := config.Read(syntax, res.Data)
	if err != nil {
		return nil, fmt.Errorf("the edit would leave the file unreadable (%w); nothing was written: please report this file's shape", err)
	}
	if len(after.Entries) != len(want) || len(after.Others) != others {
		return nil, errors.New("the edit would change which servers the file has; nothing was written: please report this file's shape")
	}
	// Edits keep the entries' order.
	for i := range after.Entries {
		e, w := &after.Entries[i], want[i]
		if e.Key() != w.key || digest(seed, e.Command, e.Args) != w.sum {
			return nil, fmt.Errorf("%s: the edit would give it %q %q; nothing was written: please report this file's shape", e.Label(), e.Command, e.Args)
		}
	}
	return res, nil
}

// digest sums a command and its args, each word's length first so that
// no two lists of words sum alike by their joins.
func digest(seed maphash.Seed, command string, args []string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	word := func(s string) {
		_ = binary.Write(&h, binary.LittleEndian, uint64(len(s)))
		_, _ = h.WriteString(s)
	}
	word(command)
	for _, a := range args {
		word(a)
	}
	return h.Sum64()
}

// ErrUnknownShape says a server is written in a shape install does not
// know how to edit.
var ErrUnknownShape = errors.New("cannot be tapped by tap install")

// Tapped reports whether command and args run a server through the tap,
// `tap [FLAGS] -- CMD ARGS…`: it returns the index of "--" in args and
// the tap's --name. The tokens between "tap" and "--" must be flags (and
// the value of --name), unless the command is mcpscope itself.
func Tapped(command string, args []string) (dashes int, name string, ok bool) {
	if len(args) < 3 || args[0] != "tap" {
		return 0, "", false
	}
	flags := true
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 >= len(args) {
				return 0, "", false
			}
			return i, name, flags || isMcpscope(command)
		case a == "--name" && i+1 < len(args):
			name = args[i+1]
			i++
		case strings.HasPrefix(a, "--name="):
			name = strings.TrimPrefix(a, "--name=")
		case strings.HasPrefix(a, "-"):
		default:
			flags = false
		}
	}
	return 0, "", false
}

func isMcpscope(command string) bool {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(command, `\`, "/")))
	return strings.HasPrefix(strings.TrimSuffix(base, ".exe"), "mcpscope")
}

func wanted(name string, names []string) bool {
	return len(names) == 0 || slices.Contains(names, name)
}

// checkNames fails on a name the file has no stdio server for, saying
// what it is instead or which names there are.
func checkNames(d *config.Doc, names []string) error {
	for _, n := range names {
		found := false
		for i := range d.Entries {
			found = found || d.Entries[i].Name == n
		}
		if found {
			continue
		}
		for _, o := range d.Others {
			if o.Name != n {
				continue
			}
			if o.URL {
				return fmt.Errorf("%q is a URL server: tap it with `mcpscope tap --name %s --listen 127.0.0.1:PORT URL` and give the client http://127.0.0.1:PORT/ instead", n, n)
			}
			return fmt.Errorf("%q %w: %s", n, ErrUnknownShape, o.Why)
		}
		var have []string
		for i := range d.Entries {
			have = append(have, d.Entries[i].Label())
		}
		for _, o := range d.Others {
			have = append(have, o.Name+" ("+o.Why+")")
		}
		if len(have) == 0 {
			return fmt.Errorf("no server %q: the file has no servers in %s", n, strings.Join(d.Maps, ", "))
		}
		return fmt.Errorf("no server %q; the file has: %s", n, strings.Join(have, ", "))
	}
	return nil
}
