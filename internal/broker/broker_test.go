package broker

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

func TestEmbeddedBrokerAuthAndPayload(t *testing.T) {
	b, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	if _, err := (Endpoint{URL: b.URL}).Connect("no-token"); err == nil {
		t.Fatal("connection without the token was accepted")
	}
	nc, err := b.Connect("test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if got := nc.MaxPayload(); got != MaxPayload {
		t.Fatalf("max payload %d, want %d", got, MaxPayload)
	}
	sub, err := nc.SubscribeSync("agh.x")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish("agh.x", make([]byte, MaxPayload)); err != nil {
		t.Fatalf("1 MiB payload refused: %v", err)
	}
	if _, err := sub.NextMsg(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish("agh.x", make([]byte, MaxPayload+1)); err == nil {
		t.Fatal("payload over 1 MiB accepted")
	}
}

func TestJetStreamOnlyWhenAsked(t *testing.T) {
	for _, js := range []bool{false, true} {
		b, err := Start(Options{JetStream: js})
		if err != nil {
			t.Fatal(err)
		}
		nc, err := b.Connect("test")
		if err != nil {
			b.Close()
			t.Fatal(err)
		}
		jsc, _ := nc.JetStream()
		_, err = jsc.AccountInfo()
		if (err == nil) != js {
			t.Errorf("jetstream=%v: account info err=%v", js, err)
		}
		nc.Close()
		b.Close()
	}
	_ = nats.DefaultURL
}
