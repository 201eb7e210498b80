package main

import (
	"time"

	"go.uber.org/zap/zapcore"

	"calshim/adapter"
)

// accessRouter sends the access log's lines (the logger named adapter.AccessLogger) through a
// buffer flushed every second, and every other line straight out: at tens of thousands of requests
// per second a write per access line was an eighth of the server's throughput, while warnings and
// errors must not wait. Sync flushes the buffer (calshim syncs its logger when it stops).
type accessRouter struct {
	main, access zapcore.Core
}

// withBufferedAccessLog returns core with the access log's lines buffered (same encoder and level).
func withBufferedAccessLog(enc zapcore.Encoder, out zapcore.WriteSyncer,
	lvl zapcore.LevelEnabler) zapcore.Core {
	buffered := &zapcore.BufferedWriteSyncer{WS: out, Size: 64 << 10, FlushInterval: time.Second}
	return accessRouter{main: zapcore.NewCore(enc, out, lvl),
		access: zapcore.NewCore(enc.Clone(), buffered, lvl)}
}

func (r accessRouter) Enabled(l zapcore.Level) bool { return r.main.Enabled(l) }

func (r accessRouter) With(fields []zapcore.Field) zapcore.Core {
	return accessRouter{main: r.main.With(fields), access: r.access.With(fields)}
}

func (r accessRouter) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if e.LoggerName == adapter.AccessLogger {
		return r.access.Check(e, ce)
	}
	return r.main.Check(e, ce)
}

func (r accessRouter) Write(e zapcore.Entry, fields []zapcore.Field) error {
	if e.LoggerName == adapter.AccessLogger {
		return r.access.Write(e, fields)
	}
	return r.main.Write(e, fields)
}

func (r accessRouter) Sync() error {
	err := r.access.Sync()
	if mainErr := r.main.Sync(); err == nil {
		err = mainErr
	}
	return err
}
