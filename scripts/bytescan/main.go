// Command bytescan is the floor `make bench-compare` measures aghcheck
// validate against: encoding/json's syntax scan (json.Valid) over every
// line of NDJSON files, on every core, and nothing else. It prints how many
// lines were valid JSON.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bytescan FILE.ndjson...")
		os.Exit(2)
	}
	// Blocks of whole lines, so the scan pays no per-line allocation.
	blocks := make(chan []byte, 2*runtime.GOMAXPROCS(0))
	var valid, total atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var v, n int64
			for b := range blocks {
				for len(b) > 0 {
					line := b
					if i := bytes.IndexByte(b, '\n'); i >= 0 {
						line, b = b[:i], b[i+1:]
					} else {
						b = nil
					}
					if len(bytes.TrimSpace(line)) == 0 {
						continue
					}
					n++
					if json.Valid(line) {
						v++
					}
				}
			}
			valid.Add(v)
			total.Add(n)
		})
	}
	for _, path := range os.Args[1:] {
		if err := split(path, blocks); err != nil {
			fmt.Fprintln(os.Stderr, "bytescan:", err)
			os.Exit(2)
		}
	}
	close(blocks)
	wg.Wait()
	fmt.Printf("%d of %d lines valid JSON\n", valid.Load(), total.Load())
}

// split sends the file at path as blocks of about 1 MiB that end at a line end.
func split(path string, blocks chan<- []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var carry []byte
	for {
		buf := make([]byte, len(carry), len(carry)+1<<20)
		copy(buf, carry)
		n, err := io.ReadFull(f, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if len(buf) > 0 {
				blocks <- buf
			}
			return nil
		}
		if err != nil {
			return err
		}
		i := bytes.LastIndexByte(buf, '\n')
		if i < 0 {
			return fmt.Errorf("%s: a line longer than 1 MiB", path)
		}
		carry = buf[i+1:]
		blocks <- buf[:i+1]
	}
}
