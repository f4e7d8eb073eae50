// Package broker runs the NATS server a conformance run talks through: an
// embedded nats-server on a random loopback port with random credentials (so
// nothing else on the machine can inject traffic) and the IUT confined to the
// run's subjects, or the coordinates of an external server or cluster given
// by the user.
package broker

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/aghcheck/aghcheck/internal/randid"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// MaxPayload is the payload limit the embedded broker enforces: the 1 MiB
// every AGH NATS peer must support.
const MaxPayload = 1 << 20

// Endpoint is how a client reaches a broker: the URL plus at most one kind of
// credential. It is also what the IUT is told through its environment.
type Endpoint struct {
	URL      string // one server, or several comma-separated (a cluster)
	Token    string
	User     string
	Password string
	Creds    string // path to a .creds file (external brokers only)
}

// Options configure the embedded broker.
type Options struct {
	// JetStream enables JetStream with its store in a fresh temporary
	// directory removed on Close.
	JetStream bool
	// MaxPayload is the largest payload the broker carries (0:
	// MaxPayload). A larger one lets aghcheck fuzz send messages past
	// the 1 MiB every peer must take.
	MaxPayload int
	// IUTSubjects confines the IUT: when set, the broker has two users,
	// the harness's (Endpoint: everything) and the IUT's (Broker.IUT),
	// which may publish and subscribe only on these subjects and on the
	// inboxes its client needs for requests: no JetStream API, no $SYS,
	// no other workspace. Empty: one token for both, as for tests that
	// play the IUT themselves.
	IUTSubjects []string
	// Dir is where the JetStream store goes (a fresh directory under it,
	// removed on Close); "" is the system's temporary directory.
	Dir string
}

// JetStream limits of the embedded broker: an IUT that floods the run's
// stream fills these, not the machine.
const (
	JetStreamMaxMemory = 64 << 20
	JetStreamMaxStore  = 256 << 20
)

// InboxPrefix is the reply subject space the IUT's client may use (the
// nats.go and nats.js default).
const InboxPrefix = "_INBOX"

// HarnessInboxPrefix is the harness's own reply subject space, outside
// InboxPrefix: the confined IUT may use _INBOX.> for its client's
// requests, and must neither read the harness's replies (JetStream API
// answers, publish acks) nor forge them.
const HarnessInboxPrefix = "_AGHCHECK_INBOX"

// The embedded broker's users when the IUT is confined: the harness may
// do anything, the IUT only what Options.IUTSubjects allows.
const (
	HarnessUser = "aghcheck"
	IUTUser     = "iut"
)

// Broker is a running embedded nats-server.
type Broker struct {
	Endpoint
	// IUT is what the IUT connects with: Endpoint itself, or a confined
	// user of its own (Options.IUTSubjects).
	IUT       Endpoint
	JetStream bool
	srv       *server.Server
	dir       string
	vlog      *violationLog // the confined IUT's refused subjects
	iutAllow  []string      // what the confined IUT may publish and subscribe on

	mu      sync.Mutex
	dropped map[uint64]bool // connections DropClients closed
}

// Start launches an embedded broker and waits until it accepts clients.
func Start(opts Options) (*Broker, error) {
	tok := randid.Hex(16)
	so := &server.Options{
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		MaxPayload: int32(cmp.Or(opts.MaxPayload, MaxPayload)),
		NoLog:      true,
		NoSigs:     true,
		HTTPPort:   0,
		ServerName: "aghcheck",
	}
	b := &Broker{JetStream: opts.JetStream}
	var iutPass string
	if len(opts.IUTSubjects) > 0 {
		iutPass = randid.Hex(16)
		allow := append(slices.Clone(opts.IUTSubjects), InboxPrefix+".>")
		b.iutAllow = allow
		so.Users = []*server.User{
			{Username: HarnessUser, Password: tok},
			{Username: IUTUser, Password: iutPass, Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Allow: allow},
				Subscribe: &server.SubjectPermission{Allow: allow},
			}},
		}
	} else {
		so.Authorization = tok
	}
	if opts.JetStream {
		dir, err := os.MkdirTemp(opts.Dir, "aghcheck-js-")
		if err != nil {
			return nil, fmt.Errorf("jetstream store: %w", err)
		}
		b.dir = dir
		so.JetStream = true
		so.StoreDir = dir
		so.JetStreamMaxMemory = JetStreamMaxMemory
		so.JetStreamMaxStore = JetStreamMaxStore
	}
	srv, err := server.NewServer(so)
	if err != nil {
		b.cleanup()
		return nil, fmt.Errorf("embedded broker: %w", err)
	}
	if iutPass != "" {
		b.vlog = &violationLog{}
		srv.SetLogger(b.vlog, false, false)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		b.cleanup()
		return nil, errors.New("embedded broker: not ready after 10s")
	}
	b.srv = srv
	b.URL = srv.ClientURL()
	if iutPass != "" {
		b.User, b.Password = HarnessUser, tok
		b.IUT = Endpoint{URL: b.URL, User: IUTUser, Password: iutPass}
	} else {
		b.Token = tok
		b.IUT = b.Endpoint
	}
	return b, nil
}

// Disconnect is a client connection the broker closed on its own account:
// a publish over MaxPayload, a protocol or parse error, a slow consumer.
type Disconnect struct {
	Name       string // the connection name the client gave, if any
	Reason     string // nats-server's words, e.g. "Maximum Message Payload Exceeded"
	MaxPayload bool   // closed for publishing more than MaxPayload bytes
}

// Disconnects lists the connections the broker closed (not those that
// closed themselves, and not because the other end died, the broker
// stopped or the harness dropped them), leaving out the connections named
// in except.
func (b *Broker) Disconnects(except ...string) []Disconnect {
	if b == nil || b.srv == nil {
		return nil
	}
	cz, err := b.srv.Connz(&server.ConnzOptions{State: server.ConnClosed, Limit: 1 << 16})
	if err != nil {
		return nil
	}
	var out []Disconnect
	for _, c := range cz.Conns {
		switch c.Reason {
		case server.ClientClosed.String(), server.ServerShutdown.String(),
			server.ReadError.String(), server.WriteError.String():
			continue
		}
		if slices.Contains(except, c.Name) || b.droppedByHarness(c.Cid) {
			continue
		}
		out = append(out, Disconnect{Name: c.Name, Reason: c.Reason, MaxPayload: c.Reason == server.MaxPayloadExceeded.String()})
	}
	return out
}

// Close shuts the broker down and removes its JetStream store.
func (b *Broker) Close() {
	if b == nil {
		return
	}
	if b.srv != nil {
		b.srv.Shutdown()
		b.srv.WaitForShutdown()
	}
	b.cleanup()
}

func (b *Broker) cleanup() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// Connect opens a client connection to e with extra options appended. A URL
// may list several servers of a cluster, comma-separated: they are tried in
// the order given (not shuffled, as nats.go would), so the first names the
// node the connection lands on while it is up and the others are where it
// goes when that node goes away.
func (e Endpoint) Connect(name string, extra ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.Timeout(5 * time.Second), nats.DontRandomize()}
	switch {
	case e.Creds != "":
		opts = append(opts, nats.UserCredentials(e.Creds))
	case e.User != "":
		opts = append(opts, nats.UserInfo(e.User, e.Password))
	case e.Token != "":
		opts = append(opts, nats.Token(e.Token))
	}
	nc, err := nats.Connect(e.URL, append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", e.URL, err)
	}
	return nc, nil
}
