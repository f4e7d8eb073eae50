package peer

import (
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/randid"
)

// The faults below break rules that no single envelope shows: every
// envelope they produce is valid on its own, and only a view across the
// work unit (the harness's work-unit tracker) catches them.

// beforeCompleting runs between the working and the completed trace of
// work the peer does on its own.
func (p *peer) beforeCompleting(trigger map[string]any, w *work) {
	if p.faults[faultBackToSubmitted] {
		p.trace(trigger, w, map[string]any{"state": agh.StateSubmitted}, true)
	}
}

// afterCompleting runs after the completed trace.
func (p *peer) afterCompleting(trigger map[string]any, w *work) {
	if p.faults[faultReportAfterDone] {
		p.trace(trigger, w, map[string]any{"state": agh.StateWorking}, true)
		w.state = agh.StateCompleted // the peer itself still knows better
	}
}

// bend applies the faults that alter an outgoing envelope before it is
// signed and sent.
func (p *peer) bend(env map[string]any) {
	body, _ := env["body"].(map[string]any)
	switch env["kind"] {
	case "receipt":
		if p.faults[faultForIDUnknown] && body["status"] == agh.StatusAccepted {
			body["for_id"] = "msg_" + randid.Hex(16)
		}
		if p.faults[faultReplyToUnknown] {
			env["reply_to"] = "msg_" + randid.Hex(16)
		}
	case "whois":
		if p.faults[faultWhoisReplyUnknown] && body["type"] == "response" {
			env["reply_to"] = "msg_" + randid.Hex(16)
		}
	case "trace":
		if body["state"] != agh.StateCompleted {
			p.lastTrace, _ = env["id"].(string)
			return
		}
		if p.faults[faultBareCompleted] {
			delete(body, "result")
			delete(body, "message")
		}
		if p.faults[faultContainerJump] {
			jump(env)
		}
		if p.faults[faultReuseID] && p.lastTrace != "" {
			env["id"] = p.lastTrace
		}
	}
}

// jump moves a conversation envelope to another thread.
func jump(env map[string]any) {
	tid, _ := env["thread_id"].(string)
	if tid == "" {
		tid = "thread_moved"
	}
	delete(env, "direct_id")
	env["surface"], env["thread_id"] = agh.SurfaceThread, tid+"_elsewhere"
}
