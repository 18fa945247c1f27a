package editor

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"time"
)

// TestClosableReaderKeepsEveryByte reads 1 MiB, written in pieces of any
// size, through a closableReader in reads of any size: its two buffers
// must never hand out a chunk the pump has begun to overwrite.
func TestClosableReaderKeepsEveryByte(t *testing.T) {
	want := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range want {
		want[i] = byte(rng.IntN(256))
	}
	pr, pw := io.Pipe()
	go func() {
		rest := want
		for len(rest) > 0 {
			n := min(len(rest), 1+rng.IntN(100<<10))
			pw.Write(rest[:n])
			rest = rest[n:]
		}
		pw.Close()
	}()
	r := newClosableReader(pr)
	defer r.close()
	var got bytes.Buffer
	buf := make([]byte, 50<<10)
	for {
		n, err := r.Read(buf[:1+rand.IntN(len(buf))])
		got.Write(buf[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("read %d bytes that differ from the %d written", got.Len(), len(want))
	}
}

// TestClosableReaderCloseEndsRead checks that close ends a Read that
// waits for input that never comes.
func TestClosableReaderCloseEndsRead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	r := newClosableReader(pr)
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 10))
		done <- err
	}()
	r.close()
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("Read after close: %v, want %v", err, io.ErrClosedPipe)
		}
	case <-time.After(2 * time.Minute): // only a hang waits this long
		t.Fatal("Read still waits 2 minutes after close")
	}
}
