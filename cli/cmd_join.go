package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/mcp/tap/join"
)

// joinOptions choose how a model capture is joined with MCP captures.
type joinOptions struct {
	// client is the view that predicts the names ("" picks it from the
	// MCP capture's clientInfo).
	client string
	format string
}

// runJoin prints the joined view of a model capture and MCP captures of
// the same run; with no MCP capture given, those of this machine's taps
// whose time meets the model capture's are taken.
func runJoin(out io.Writer, model tap.Listed, servers []tap.Listed, o joinOptions) error {
	if model.Transport != tap.TransportModel {
		return withCode(exitUsage, fmt.Errorf("%s is not a model tap's capture: the first capture of a join is the model tap's (mcpscope tap --model)", model.ID))
	}
	var client clients.ID
	if o.client != "" {
		id, ok := clients.Parse(o.client)
		if !ok {
			return withCode(exitUsage, fmt.Errorf("--client-profile %q: expected one of %s", o.client, clientNames()))
		}
		client = id
	}
	switch o.format {
	case "", "text", "json":
	default:
		return withCode(exitUsage, fmt.Errorf("--format %q: expected text or json", o.format))
	}
	_, reqs, err := tap.ReadModel(model.File)
	var cut *record.CutError
	if err != nil && !errors.As(err, &cut) {
		return withCode(exitUsage, err)
	}
	if len(servers) == 0 {
		if servers, err = overlapping(model, reqs); err != nil {
			return withCode(exitUsage, err)
		}
	}
	var in []join.Server
	for _, l := range servers {
		if l.Transport == tap.TransportModel {
			return withCode(exitUsage, fmt.Errorf("%s is a model tap's capture: join one model capture with MCP captures", l.ID))
		}
		s, err := reading.ReadFile(l.File, true)
		if err != nil {
			return withCode(exitUsage, err)
		}
		in = append(in, join.Server{ID: l.ID, Name: serverName(l, s), Session: s})
	}
	r := join.Join(join.Model{ID: model.ID, Requests: reqs}, in, client)
	if cut != nil {
		r.Notes = append(r.Notes, "model capture incomplete: "+cut.Error())
	}
	for _, s := range in {
		if note := s.Session.CutNote(); note != "" {
			r.Notes = append(r.Notes, "MCP capture incomplete: "+note)
		}
	}
	if o.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	join.WriteText(out, r)
	return nil
}

// overlapping are the MCP taps' captures on this machine whose time
// meets the model capture's.
func overlapping(model tap.Listed, reqs []tap.ModelEntry) ([]tap.Listed, error) {
	if len(reqs) == 0 {
		return nil, fmt.Errorf("the model capture %s holds no request to join", model.ID)
	}
	start, end := reqs[0].Time, reqs[0].Time
	for _, q := range reqs {
		if q.Time.Before(start) {
			start = q.Time
		}
		if e := q.Time.Add(time.Duration(q.DurationMs * float64(time.Millisecond))); e.After(end) {
			end = e
		}
	}
	taps, err := tap.List()
	if err != nil {
		return nil, err
	}
	var out []tap.Listed
	for _, l := range taps {
		if l.Transport == tap.TransportModel || l.Started.IsZero() {
			continue
		}
		last := l.Modified
		if l.Live {
			last = time.Now()
		}
		if !l.Started.After(end) && !last.Before(start) {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no MCP tap's capture overlaps the model capture %s in time; name one (mcpscope taps --join %s MCP_ID)", model.ID, model.ID)
	}
	return out, nil
}

// serverName is the name a client's prefixes use: the tap's --name (the
// client's configuration names the server so), else the server's own.
func serverName(l tap.Listed, s *reading.Session) string {
	if l.Name != "" {
		return l.Name
	}
	for _, c := range s.Connections {
		if c.Handshake != nil && c.Handshake.ServerInfo.Name != "" {
			return c.Handshake.ServerInfo.Name
		}
	}
	return l.ID
}

func clientNames() string {
	var ns []string
	for _, id := range clients.All() {
		ns = append(ns, string(id))
	}
	return strings.Join(ns, ", ")
}
