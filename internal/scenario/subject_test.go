package scenario

import "testing"

func TestConfined(t *testing.T) {
	const ws, ch = "aghcheck-1a2b", "conformance"
	for _, c := range []struct {
		subject string
		ok      bool
	}{
		{"agh.network.v0.aghcheck-1a2b.conformance.broadcast", true},
		{"agh.network.v0.aghcheck-1a2b.conformance.peer.0123456789abcdef0123456789abcdef", true},
		{"agh.network.v0.aghcheck-1a2b.other-channel.broadcast", true},
		{"agh.network.v0.aghcheck-1a2b-other.conformance.peer.ab", true},
		{"agh.network.v0.conformance.broadcast", true},
		{"agh.network.v0.conformance.peer.ab", true},
		{"agh.network.v0.conformance.peer.ab.cd", false},
		{"agh.network.v0.conformance.something", false},
		{"agh.network.v0.aghcheck-1a2b", false},
		{"agh.network.v0.aghcheck-1a2bX.conformance.broadcast", false},
		{"agh.network.v0.prod.conformance.broadcast", false},
		{"agh.network.v0.aghcheck-1a2b.>", false},
		{"agh.network.v0.aghcheck-1a2b.*.broadcast", false},
		{"agh.network.v0.aghcheck-1a2b..broadcast", false},
		{"agh.network.v0.aghcheck-1a2b.conformance.broad cast", false},
		{"agh.network.v0.aghcheck-1a2b.conformance.broadcast\r\n", false},
		{"$JS.API.STREAM.DELETE.PROD_ORDERS", false},
		{"$SYS.REQ.SERVER.PING", false},
		{"orders.evil", false},
		{"_INBOX.abc", false},
		{"", false},
	} {
		if got := Confined(c.subject, ws, ch); got != c.ok {
			t.Errorf("Confined(%q) = %v, want %v", c.subject, got, c.ok)
		}
	}
	if !ReplyConfined("_INBOX.aghcheck.msg_1", ws, ch) || ReplyConfined("_INBOX.>", ws, ch) || ReplyConfined("$JS.API.INFO", ws, ch) {
		t.Error("reply subjects: an inbox, no wildcard, no API")
	}
	if Confined("agh.network.v0.x.conformance.broadcast", "", ch) {
		t.Error("no workspace, no subject")
	}
}
