package mcp

import (
	"strings"
	"testing"
	"time"
)

func TestObserverCorrelatesBothWays(t *testing.T) {
	o := NewObserver("stdio")
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	req := o.Frames(Outbound, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), "", "", at(0))[0]
	srvReq := o.Frames(Inbound, []byte(`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`), "", "", at(1))[0]
	ans := o.Frames(Inbound, []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`), "", "", at(5))[0]
	cliAns := o.Frames(Outbound, []byte(`{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}`), "", "", at(7))[0]
	dup := o.Frames(Inbound, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), "", "", at(8))[0]
	unknown := o.Frames(Inbound, []byte(`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"no"}}`), "", "", at(9))[0]
	if req.Seq != 1 || srvReq.Seq != 2 || ans.Seq != 3 {
		t.Fatalf("seqs %d %d %d", req.Seq, srvReq.Seq, ans.Seq)
	}
	if ans.ReplyTo != req.Seq || ans.ReplyToMethod != MethodToolsList || ans.Latency != 5*time.Millisecond {
		t.Errorf("server answer: %+v", ans)
	}
	if cliAns.ReplyTo != srvReq.Seq || cliAns.ReplyToMethod != MethodRootsList || cliAns.Latency != 6*time.Millisecond {
		t.Errorf("client answer: %+v", cliAns)
	}
	if !dup.Duplicate || dup.ReplyTo != req.Seq {
		t.Errorf("second answer: %+v", dup)
	}
	if !unknown.UnknownID || !strings.Contains(unknown.Problem, "the client") || unknown.ErrorCode != -32601 {
		t.Errorf("unknown id: %+v", unknown)
	}
	batch := o.Frames(Outbound, []byte(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`), "", "", at(10))
	if len(batch) != 3 || batch[0].Kind != KindBatch || batch[1].BatchSeq != batch[0].Seq || batch[2].Seq != batch[0].Seq+2 {
		t.Errorf("batch: %+v", batch)
	}
	bad := o.Frames(Inbound, []byte("log line"), "last line has no trailing newline", "", at(11))[0]
	if bad.Kind != KindInvalid || !strings.Contains(bad.Problem, "no trailing newline") || !strings.Contains(bad.Problem, "not JSON") {
		t.Errorf("invalid: %+v", bad)
	}
}
