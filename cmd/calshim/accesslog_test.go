package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"calshim/adapter"
)

// lockedBuffer is a bytes.Buffer safe for the buffered syncer's flushing goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Access lines wait in the buffer until a sync (or the next second); other lines go out at once,
// and no line shows the logger's name.
func TestAccessLogBuffered(t *testing.T) {
	var out lockedBuffer
	log, err := newLogger("info", &out)
	if err != nil {
		t.Fatal(err)
	}

	log.Named(adapter.AccessLogger).Info("request")
	log.Warn("snapshot discarded")
	if s := out.String(); !strings.Contains(s, "snapshot discarded") || strings.Contains(s, `"request"`) {
		t.Fatalf("before sync: %q", s)
	}

	_ = log.Sync()
	if s := out.String(); !strings.Contains(s, `"msg":"request"`) || strings.Contains(s, `"logger"`) {
		t.Errorf("after sync: %q", s)
	}
}
